import {
  type Access,
  type CallContext,
  type Decision,
  type GuardPlugin,
  LruMap,
  Stage,
} from '@toolgate/core';
import { type CompiledOptions, compileOptions, type FileTimeOptions } from './options.js';
import { remember, type SessionFiles, sessionFiles } from './sessionFiles.js';
import { sameStamp, stampOf } from './stamp.js';

// After the path policies (Stage.POLICY): a path they deny is reported as denied by policy, not as stale.
const STAGE = Stage.POLICY + 100;
// Calls between their judgement and their decision: a handful at a time; bounded so a call whose decision
// never arrives (a host that drops it) cannot grow the map.
const IN_FLIGHT = 1_024;

/** A read of a file's contents by the agent — not a program run from it, not a listing, not a subtree. */
function isRead(a: Access): a is Access & { realPath: string } {
  return a.op === 'read' && a.scope === 'path' && a.certain && a.realPath !== null && a.runs === undefined;
}

/** A write of a file's contents (not an operation on a link itself: delete, rename). */
function isWrite(a: Access): a is Access & { realPath: string } {
  return a.op === 'write' && a.scope === 'path' && a.certain && a.realPath !== null && a.onLink !== true;
}

function isWild(options: CompiledOptions, ctx: CallContext): boolean {
  return options.wild || (options.wildEnv !== undefined && ctx.env[options.wildEnv] === 'true');
}

/**
 * wolo's FileTime check (seed 002): a write or edit of a file that changed on disk since the agent last read it
 * in this session — or that it never read — is refused (or prompted, `onStale: 'prompt'`). A file that does
 * not exist yet may be created. Per session: what one session read says nothing about another. Off in wolo's
 * wild mode. Install it beside a path policy (folder-rules), which extracts the accesses it looks at.
 *
 * @example
 * ```ts
 * import { createGuard } from '@toolgate/core';
 * import { fileTime } from '@toolgate/filetime';
 * import { folderRules } from '@toolgate/folder-rules';
 *
 * const guard = createGuard({
 *   plugins: [folderRules({ dialect: 'wolo', source: 'path_safety: {}' }), fileTime({ onStale: 'prompt' })],
 * });
 * ```
 */
export function fileTime(options: FileTimeOptions = {}): GuardPlugin {
  const opts = compileOptions(options);
  const inFlight = new LruMap<string, SessionFiles>(IN_FLIGHT);
  // A wrapped tool reports when it ended (`afterToolCall`): the stamps are then taken after the write.
  const ran = new WeakMap<Decision, SessionFiles>();
  // "FileTime external-modification checks before write/edit/multiedit" (seed 002): its tools' writes, and a
  // shell's only when asked. An unchecked write does not count as the agent knowing the file either.
  const checked = (a: Access): a is Access & { realPath: string } =>
    isWrite(a) && (opts.shell || !a.origin.startsWith('shell:'));
  return {
    name: 'filetime',
    apply(hooks) {
      hooks.beforeToolCall.tap({ stage: STAGE }, (_call, state) => {
        const touches = state.accesses.some((a) => isRead(a) || checked(a));
        const known = state.session.get('filetime') as SessionFiles | undefined;
        if (!touches && (known === undefined || known.written.size === 0)) return undefined;
        const files = known ?? sessionFiles(state.session);
        // The agent's own writes of its earlier calls have ended by now (a hook host does not say when).
        for (const path of files.written) remember(files, path);
        if (touches) inFlight.set(state.id, files);
        // "When wild mode is enabled: … FileTime external-modification checks before write/edit/multiedit are
        // bypassed." (seed 002)
        if (isWild(opts, state.ctx)) return undefined;
        for (const access of state.accesses) {
          if (!checked(access)) continue;
          // The one stat on the decision path: the check is about the disk as it is now.
          const now = stampOf(access.realPath);
          if (now === undefined) continue; // a new file: nothing to overwrite
          const seen = files.seen.get(access.realPath);
          if (seen !== undefined && sameStamp(seen, now)) continue;
          const finding = {
            code: 'FILE_CHANGED',
            reason:
              seen === undefined
                ? `${access.raw} was not read in this session: read it before changing it`
                : `${access.raw} changed on disk since you last read it`,
            access,
            hint: 'Read the file again, then make the change to what it holds now.',
          };
          if (opts.onStale === 'deny') return { action: 'deny', ...finding };
          state.prompt(finding);
        }
        return undefined;
      });

      // Reads count once the call is allowed: a refused read showed the agent nothing.
      hooks.onDecision.tap({ stage: Stage.AUDIT }, (decision) => {
        const files = inFlight.peek(decision.id);
        if (files === undefined) return;
        inFlight.delete(decision.id);
        if (decision.action !== 'allow') return;
        for (const a of decision.accesses) if (isRead(a)) remember(files, a.realPath);
        for (const a of decision.accesses) if (checked(a)) files.written.add(a.realPath);
        ran.set(decision, files);
      });

      hooks.afterToolCall.tap({ stage: Stage.AUDIT }, ({ decision }) => {
        const files = ran.get(decision);
        if (files === undefined) return;
        ran.delete(decision);
        for (const a of decision.accesses) if (isRead(a) || checked(a)) remember(files, a.realPath);
      });
    },
  };
}
