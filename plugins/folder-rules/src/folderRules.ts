import {
  type Access,
  type CallState,
  describeValue,
  type Finding,
  type GuardPlugin,
  parseNetworkSection,
  Stage,
  ToolgateError,
} from '@toolgate/core';
import { classifyWith, type LearnedTools, toolPlans } from './classify.js';
import { describeTools } from './describe.js';
import { defaultSpec } from './draft.js';
import { DEFAULT_MAX_WORKSPACES, type EvaluateOptions, evaluatorFor, vectorOf } from './evaluator.js';
import { toolAccesses } from './extract.js';
import { finalize } from './finalize.js';
import { findingFor, hasTraversal, matchedRule, PLUGIN_NAME } from './findings.js';
import { folderGuardStatus } from './folderGuardStatus.js';
import { codeAccesses, codeToolOf, gateFinding } from './gates.js';
import { guardFinding } from './guardFiles.js';
import { type DialectName, loadPolicy } from './loadPolicy.js';
import { judgeNetwork } from './networkJudge.js';
import { compileSelector } from './selectors.js';
import type { SubtreeWalkOptions } from './subtreeWalk.js';
import type { CombiningMode, CompiledPolicy, Outcome, PolicyRule, RuleAccess, ToolSpec } from './types.js';
import { urlReaches } from './urlReach.js';

/** A rule written inline in code (the native model). `!pattern` is a block. */
export interface InlineRule {
  pattern: string;
  access: RuleAccess;
  description?: string;
  /** Only calls through this vector (`shell` commands or `file` tools), as in the toolgate dialect. */
  vector?: 'shell' | 'file';
  /** Only these operations (a listing counts as a read), as in the toolgate dialect. */
  ops?: readonly ('read' | 'write')[];
}

const INLINE_KEYS = new Set(['pattern', 'access', 'description', 'vector', 'ops']);

export interface FolderRulesOptions {
  /** A policy from `loadPolicy`. */
  policy?: CompiledPolicy;
  /** Load a policy file (or its `source` text) at construction; `dialect` is inferred when omitted. */
  dialect?: DialectName;
  file?: string;
  source?: string;
  agent?: string;
  overlays?: string[];
  /** Inline native rules (when neither `policy` nor `dialect` is given). */
  rules?: InlineRule[];
  mode?: CombiningMode;
  default?: 'allow' | 'deny' | 'prompt' | 'read' | 'write';
  /** Extends the built-in tool table: `{name: {op, pathArgs}}`. */
  tools?: Record<string, ToolSpec>;
  /** What path-bearing calls of unclassified tools get (default: the policy's, which defaults to deny). */
  unknownTools?: Outcome;
  /**
   * How subtree accesses (`grep -r`, `tar`, `directory_tree`) are judged: by a walk of what exists beneath
   * them, within these bounds (default `{maxEntries: 50000, maxMs: 500}`); `false` judges them by every rule
   * that could match beneath, without looking (the worst case, no I/O).
   */
  subtreeWalk?: SubtreeWalkOptions | false;
  /** Where setup lines go (Folder Guard's "🔒 Folder guard enabled - Read paths: […]"); default: nowhere. */
  log?: (line: string) => void;
  /**
   * Pick the policy of `ctx.agentId` among the file's agents (default true). `false` where the agent id is
   * not the host's to vouch for (an MCP client's self-declared name): every call gets the global policy.
   */
  perAgent?: boolean;
  /**
   * How many contexts (workspace, home, the policy's variables) keep their compiled evaluator (default 256).
   * A host serving more workspaces than this recompiles the least recently used one when it comes back;
   * the cache is never cleared as a whole.
   */
  maxWorkspaces?: number;
  /**
   * With inline `rules`: the native `network` section (`{default, presets, rules}`, docs/dialects.md), checked
   * like the file's (`TOOLGATE_ERR_INVALID_CONFIG` naming `inline`, the field and the value).
   */
  network?: Record<string, unknown>;
}

const OPTION_KEYS = new Set([
  'policy',
  'dialect',
  'file',
  'source',
  'agent',
  'overlays',
  'rules',
  'mode',
  'default',
  'tools',
  'unknownTools',
  'subtreeWalk',
  'log',
  'perAgent',
  'maxWorkspaces',
  'network',
]);
const OPS = new Set(['read', 'write', 'list', 'copy', 'move', 'shell', 'opaque', 'none', 'patch']);

function invalid(field: string, value: unknown, expected: string): ToolgateError {
  return new ToolgateError(
    'TOOLGATE_ERR_INVALID_OPTIONS',
    `folderRules: option ${field}: ${expected}, got ${describeValue(value)}`,
  );
}

function resolveOptions(options: FolderRulesOptions): CompiledPolicy {
  if (options === null || typeof options !== 'object')
    throw invalid('(options)', options, 'expected an object');
  for (const key of Object.keys(options))
    if (!OPTION_KEYS.has(key))
      throw invalid(key, (options as Record<string, unknown>)[key], 'unknown option');
  let policy: CompiledPolicy;
  if (options.policy !== undefined) {
    if (
      typeof options.policy !== 'object' ||
      options.policy === null ||
      typeof options.policy.hash !== 'string'
    )
      throw invalid('policy', options.policy, 'expected a CompiledPolicy from loadPolicy()');
    policy = options.policy;
  } else if (options.dialect !== undefined || options.file !== undefined || options.source !== undefined) {
    // Without `dialect`, loadPolicy infers it from the file's keys (and name).
    policy = loadPolicy({
      ...(options.dialect !== undefined ? { dialect: options.dialect } : {}),
      ...(options.file !== undefined ? { file: options.file } : {}),
      ...(options.source !== undefined ? { source: options.source } : {}),
      ...(options.agent !== undefined ? { agent: options.agent } : {}),
      ...(options.overlays !== undefined ? { overlays: options.overlays } : {}),
    });
  } else if (options.rules !== undefined) {
    if (!Array.isArray(options.rules))
      throw invalid('rules', options.rules, 'expected a list of {pattern, access}');
    const rules = options.rules.map((r, i): PolicyRule => {
      if (!r || typeof r.pattern !== 'string' || r.pattern === '')
        throw invalid(`rules[${i}].pattern`, r?.pattern, 'expected a glob');
      if (!['deny', 'prompt', 'read', 'write'].includes(r.access))
        throw invalid(`rules[${i}].access`, r.access, 'expected deny, prompt, read or write');
      for (const key of Object.keys(r))
        if (!INLINE_KEYS.has(key))
          throw invalid(
            `rules[${i}].${key}`,
            (r as unknown as Record<string, unknown>)[key],
            'not a rule field',
          );
      if (r.vector !== undefined && r.vector !== 'shell' && r.vector !== 'file')
        throw invalid(`rules[${i}].vector`, r.vector, 'expected shell or file');
      if (
        r.ops !== undefined &&
        (!Array.isArray(r.ops) || r.ops.length === 0 || r.ops.some((o) => o !== 'read' && o !== 'write'))
      )
        throw invalid(`rules[${i}].ops`, r.ops, 'expected a non-empty list of read and write');
      const block = r.pattern.startsWith('!');
      return {
        pattern: block ? r.pattern.slice(1) : r.pattern,
        access: block ? 'deny' : r.access,
        source: `inline#rules[${i}]`,
        ...(block ? { block } : {}),
        ...(r.description !== undefined ? { description: r.description } : {}),
        ...(r.vector !== undefined ? { vector: r.vector } : {}),
        ...(r.ops !== undefined ? { ops: [...r.ops] } : {}),
      };
    });
    if (options.mode !== undefined && options.mode !== 'tiered' && options.mode !== 'first-match')
      throw invalid('mode', options.mode, 'expected "tiered" or "first-match"');
    if (
      options.default !== undefined &&
      !['allow', 'deny', 'prompt', 'read', 'write'].includes(options.default)
    )
      throw invalid('default', options.default, 'expected allow, deny, prompt, read or write');
    policy = finalize(
      {
        dialect: 'toolgate',
        source: 'inline',
        rules,
        mode: options.mode ?? 'tiered',
        default: defaultSpec(options.default ?? 'deny'),
        ...(options.network !== undefined ? { network: parseNetworkSection(options.network, 'inline') } : {}),
      },
      ['inline'],
    );
  } else {
    throw invalid('policy', undefined, 'give one of policy, dialect + file/source, or rules');
  }
  if (
    options.network !== undefined &&
    (options.policy !== undefined ||
      options.dialect !== undefined ||
      options.file !== undefined ||
      options.source !== undefined)
  )
    throw invalid(
      'network',
      options.network,
      "only beside inline rules (a policy file's network section is its own)",
    );
  if (options.tools !== undefined) {
    if (typeof options.tools !== 'object' || options.tools === null)
      throw invalid('tools', options.tools, 'expected {name: {op, pathArgs}}');
    for (const [name, spec] of Object.entries(options.tools)) {
      if (!spec || !OPS.has(spec.op))
        throw invalid(
          `tools.${name}.op`,
          spec?.op,
          'expected read, write, list, copy, move, shell, opaque, none or patch',
        );
      if (spec.paths !== undefined && !Array.isArray(spec.paths))
        throw invalid(`tools.${name}.paths`, spec.paths, 'expected a list of selectors');
      for (const [i, d] of (spec.paths ?? []).entries()) {
        const text = typeof d === 'string' ? d : d?.arg;
        if (typeof text !== 'string' || !compileSelector(text))
          throw invalid(
            `tools.${name}.paths[${i}]`,
            d,
            'expected a selector such as "path", "paths[]" or "ops[].path"',
          );
        if (typeof d === 'object' && d.op !== undefined && !['read', 'write', 'list'].includes(d.op))
          throw invalid(`tools.${name}.paths[${i}].op`, d.op, 'expected read, write or list');
      }
      if (spec.urls !== undefined && !Array.isArray(spec.urls))
        throw invalid(`tools.${name}.urls`, spec.urls, 'expected a list of selectors');
      for (const [i, d] of (spec.urls ?? []).entries()) {
        const text = typeof d === 'string' ? d : d?.arg;
        if (typeof text !== 'string' || !compileSelector(text))
          throw invalid(
            `tools.${name}.urls[${i}]`,
            d,
            'expected a selector such as "url" or "requests[].url"',
          );
        if (typeof d === 'object' && d.method !== undefined && d.method !== 'read' && d.method !== 'write')
          throw invalid(`tools.${name}.urls[${i}].method`, d.method, 'expected read or write');
      }
      if (
        spec.pathArgs !== undefined &&
        (!Array.isArray(spec.pathArgs) || spec.pathArgs.some((a) => typeof a !== 'string'))
      )
        throw invalid(`tools.${name}.pathArgs`, spec.pathArgs, 'expected a list of argument names');
    }
  }
  if (options.unknownTools !== undefined && !['allow', 'deny', 'prompt'].includes(options.unknownTools))
    throw invalid('unknownTools', options.unknownTools, 'expected "allow", "deny" or "prompt"');
  if (options.tools === undefined && options.unknownTools === undefined) return policy;
  return Object.freeze({
    ...policy,
    tools: { ...policy.tools, ...(options.tools ?? {}) },
    unknownTools: options.unknownTools ?? policy.unknownTools,
  });
}

function walkOptionsOf(value: unknown): SubtreeWalkOptions | false {
  if (value === undefined) return {};
  if (value === false) return false;
  if (typeof value !== 'object' || value === null)
    throw invalid('subtreeWalk', value, 'expected false or {maxEntries, maxMs}');
  const out: SubtreeWalkOptions = {};
  for (const [key, v] of Object.entries(value)) {
    if (key !== 'maxEntries' && key !== 'maxMs') throw invalid(`subtreeWalk.${key}`, v, 'unknown option');
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
      throw invalid(`subtreeWalk.${key}`, v, 'expected a non-negative number');
    out[key] = v;
  }
  return out;
}

/**
 * Folder Guard: "Validated paths passed to original tool executor" — each string path argument is rewritten
 * to the absolute path that was checked (`""` and relative paths resolved against the workspace), so the
 * tool cannot read it differently (seed: `args[paramName] = normalizedPath`).
 */
function normalisePathArgs(accesses: readonly Access[], state: CallState): void {
  for (const a of accesses) {
    const m = /^folder-rules:args\.([^[\]]+)$/.exec(a.origin);
    if (m && a.certain && typeof state.call.args[m[1]!] === 'string') state.rewriteArg(m[1]!, a.path);
  }
}

/**
 * The path policy plugin: classifies tool calls, extracts every path argument, and judges every access
 * (its own and the shell plugin's) against a compiled policy in any dialect.
 *
 * @example
 * ```ts
 * import { createGuard } from '@toolgate/core';
 * import { folderRules } from '@toolgate/folder-rules';
 * const guard = createGuard({
 *   plugins: [folderRules({ rules: [{ pattern: '<workspace>/**', access: 'write' }, { pattern: '~/.ssh/**', access: 'deny' }] })],
 * });
 * const d = await guard.check({ tool: 'read_file', args: { path: '~/.ssh/id_rsa' } }, ctx); // deny
 * ```
 */
export function folderRules(
  options: FolderRulesOptions,
): GuardPlugin & { readonly compiled: CompiledPolicy } {
  const policy = resolveOptions(options);
  const walkOptions: EvaluateOptions = { walk: walkOptionsOf(options.subtreeWalk) };
  if (options.log !== undefined && typeof options.log !== 'function')
    throw invalid('log', options.log, 'expected a function (line: string) => void');
  const status = folderGuardStatus(policy);
  if (status !== undefined) options.log?.(status);
  const maxWorkspaces = options.maxWorkspaces ?? DEFAULT_MAX_WORKSPACES;
  if (!Number.isInteger(maxWorkspaces) || maxWorkspaces < 1)
    throw invalid('maxWorkspaces', options.maxWorkspaces, 'expected a positive integer');
  const learned: LearnedTools = new Map();
  // Seed 001: "guardrails.setFolderPermissions('agent-id', config)" — one guard, one policy per agent. An
  // agent the file does not name gets the global policy (never no policy).
  if (options.perAgent !== undefined && typeof options.perAgent !== 'boolean')
    throw invalid('perAgent', options.perAgent, 'expected a boolean');
  const agents = options.perAgent === false ? undefined : policy.agents;
  const policyFor = (agentId: string): CompiledPolicy =>
    (agents && Object.hasOwn(agents, agentId) ? agents[agentId] : undefined) ?? policy;
  // Tool plans per compiled policy (an agent's own policy has its own tool table), cached per tool name.
  const planCache = new Map<CompiledPolicy, ReturnType<typeof toolPlans>>();
  const plansOf = (p: CompiledPolicy): ReturnType<typeof toolPlans> => {
    let plans = planCache.get(p);
    if (!plans) {
      plans = toolPlans(p.tools, learned, p.shell?.notShell);
      planCache.set(p, plans);
    }
    return plans;
  };
  // Per call only (keyed by the call's state): what extraction found that no classification accounts for.
  const unattributedOf = new WeakMap<CallState, Access[]>();
  return {
    name: PLUGIN_NAME,
    // Tells core a path policy is installed (so `unguarded` does not apply); the policy itself is `compiled`.
    policy: true,
    compiled: policy,
    // An uncertain access cannot be refused by a policy that refuses nothing for its operation (Wunderland's
    // `dangerous` tier, a disabled Folder Guard, wolo wild mode): denying it would be a false deny.
    coversUncertain(access, ctx) {
      const p = policyFor(ctx.agentId);
      return p.disabled || evaluatorFor(p, ctx, maxWorkspaces).allowsEverywhere(access.op, vectorOf(access));
    },
    // Program identity (invariant 6): a program the agent could have written (or will, after approval) runs
    // the agent's code. Judged as a write by a shell command would be, against the real path.
    agentWritable(realPath, ctx) {
      const p = policyFor(ctx.agentId);
      if (p.disabled) return true;
      const probe: Access = {
        op: 'write',
        scope: 'path',
        raw: realPath,
        path: realPath,
        realPath,
        origin: 'shell:program',
        certain: true,
      };
      return evaluatorFor(p, ctx, maxWorkspaces).evaluate(probe).decision !== 'deny';
    },
    apply(hooks) {
      hooks.collectAccesses.tap({ stage: Stage.EXTRACT }, (accesses, call, state) => {
        const p = policyFor(state.ctx.agentId);
        const code = codeToolOf(p, call.tool);
        if (code) return [...accesses, ...codeAccesses(call, code, state)];
        const c = classifyWith(plansOf(p).get(call.tool), call);
        if (c.kind === 'shell') return accesses;
        // URL arguments are network reaches: only extracted where the policy restricts the network.
        if (p.network !== undefined && !p.network.unrestricted) urlReaches(call.tool, call.args, c, state);
        const mine = toolAccesses(call.tool, call.args, c, p, state);
        if (mine.unattributed.length > 0) unattributedOf.set(state, mine.unattributed);
        if (p.dialect === 'folderguard' && !p.disabled) normalisePathArgs(mine.accesses, state);
        return mine.accesses.length === 0 ? accesses : [...accesses, ...mine.accesses];
      });
      hooks.beforeToolCall.tap({ stage: Stage.POLICY }, (call, state): Finding | undefined => {
        const p = policyFor(state.ctx.agentId);
        const c = classifyWith(plansOf(p).get(call.tool), call);
        const gate = gateFinding(call.tool, c, p);
        if (gate?.action === 'deny') return gate;
        if (gate) state.prompt(gate);
        if (c.kind === 'shell' && !state.claimed('shell') && !p.disabled) {
          return {
            action: 'deny',
            code: 'UNKNOWN_TOOL',
            reason: 'shell command not analysed: install @toolgate/shell',
            hint: 'Use a file tool instead, or ask the user.',
          };
        }
        // Code execution touches whatever the code touches: no argument says which paths (fail closed),
        // unless the policy scopes the tool by the code's literals (Hermes `code_execution`).
        if (
          c.kind === 'known' &&
          c.spec.op === 'opaque' &&
          !codeToolOf(p, call.tool) &&
          !p.disabled &&
          p.unknownTools !== 'allow'
        ) {
          const finding: Finding = {
            action: p.unknownTools,
            code: 'UNKNOWN_TOOL',
            reason: `tool ${JSON.stringify(call.tool)} runs code whose file accesses cannot be analysed`,
            hint: 'Use the file tools or a shell command instead, or ask the user.',
          };
          if (p.unknownTools === 'deny') return finding;
          state.prompt(finding);
        }
        // A path-looking argument no declaration, table or schema accounts for: the policy's unknownTools.
        const unattributed = unattributedOf.get(state);
        if (unattributed && p.unknownTools !== 'allow' && !p.disabled) {
          const access = unattributed[0];
          if (access) {
            const finding: Finding = {
              action: p.unknownTools,
              code: 'UNKNOWN_TOOL',
              reason:
                c.kind === 'unknown'
                  ? `tool ${JSON.stringify(call.tool)} is not classified and has path arguments`
                  : `tool ${JSON.stringify(call.tool)} has a path-looking argument its schema does not declare (${access.origin.replace(/^folder-rules:/, '')})`,
              access,
              hint: 'Use a known file tool, or ask the user to classify this tool.',
            };
            if (p.unknownTools === 'deny') return finding;
            state.prompt(finding);
          }
        }
        return judge(p, state.accesses, state, call.tool) ?? judgeNetwork(p, state, call.tool);
      });
      hooks.describeTools.tap({ stage: Stage.POLICY }, (tools, dctx) => {
        const described = describeTools(tools, dctx, policy, plansOf(policy));
        // What the tool list taught (MCP annotations) reaches the agents' own plans too: rebuilt on use.
        for (const p of planCache.keys()) if (p !== policy) planCache.delete(p);
        return described;
      });
    },
  };

  function judge(
    policy: CompiledPolicy,
    accesses: readonly Access[],
    state: CallState,
    tool: string,
  ): Finding | undefined {
    if (accesses.length === 0) return undefined;
    for (const access of accesses) {
      if (policy.rejectTraversal && hasTraversal(access.raw)) {
        return {
          action: 'deny',
          code: 'PATH_TRAVERSAL',
          reason: 'path contains a ".." component: directory traversal is rejected',
          access,
          hint: 'Write the path without "..".',
        };
      }
    }
    // Built in, before the rules: no rule (nor a disabled policy) lets the agent rewrite what toolgate trusts.
    const guarded = guardFinding(accesses, policy, state.ctx);
    if (guarded) return guarded;
    if (policy.disabled) return undefined;
    const ev = evaluatorFor(policy, state.ctx, maxWorkspaces);
    for (const access of accesses) {
      if (!access.certain) continue; // core has judged it already: never allowed
      const result = ev.evaluate(access, walkOptions);
      for (const rule of result.matched) state.match(matchedRule(rule));
      if (result.decision === 'allow') continue;
      const finding = findingFor(
        result,
        access,
        ev.envelopeRoots(access.op, vectorOf(access)),
        tool,
        policy.dialect,
      );
      if (result.decision === 'deny') return finding;
      state.prompt(finding);
    }
    return undefined;
  }
}
