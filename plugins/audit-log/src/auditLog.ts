import {
  type Decision,
  type Finding,
  type GuardPlugin,
  type PluginApi,
  Stage,
  type ToolCall,
} from '@toolgate/core';
import type { TrailCounters } from './durableFile.js';
import { type AuditLogOptions, compileOptions } from './options.js';
import { buildRecord, type RecordSettings } from './record.js';
import { createRedactor } from './redact.js';
import { openTrail } from './sharedTrail.js';

/** The plugin, plus its counters and controls for hosts and tests. */
export interface AuditLogPlugin extends GuardPlugin {
  /** The absolute path of the trail file. */
  readonly file: string;
  /** Live counters: records written, failed writes, buffered and dropped records, rotations (of the file, shared by every
   * plugin of this process that writes it). */
  readonly counters: Readonly<TrailCounters>;
  /** False while the trail cannot be written (records are buffered and retried); true once it can again. */
  readonly healthy: boolean;
  /** Writes buffered records now (async mode, or after a disk failure); false if some remain. */
  flush(): boolean;
  /**
   * Flushes and releases the file (closed once every plugin writing it in this process has released it);
   * later records of this plugin are ignored.
   */
  close(): void;
}

/** What `guard.events` receives as `audit-error` when the trail cannot be written. */
export interface AuditErrorEvent {
  plugin: 'audit-log';
  file: string;
  what: 'write' | 'open' | 'rotate' | 'dropped';
  error: unknown;
  counters: Readonly<TrailCounters>;
}

/**
 * Records every violation (and with `level: 'all'` every decision) as one JSON line via pino, written
 * before `check()` resolves (durability `sync`), rotated by exact size, chained by SHA-256.
 *
 * @example
 * ```ts
 * import { createGuard } from '@toolgate/core';
 * import { auditLog } from '@toolgate/audit-log';
 * const audit = auditLog({ file: '/var/log/toolgate/violations.log', policyHash: policy.hash });
 * const guard = createGuard({ plugins: [folderRules(policy), audit] });
 * guard.events.on('audit-error', (e) => console.error('audit trail failing', e.what, e.error));
 * ```
 */
export function auditLog(options: AuditLogOptions = {}): AuditLogPlugin {
  const opts = compileOptions(options);
  let api: PluginApi | undefined;
  const pending: AuditErrorEvent[] = [];
  const report = (error: unknown, what: AuditErrorEvent['what'], counters: Readonly<TrailCounters>) => {
    const event: AuditErrorEvent = { plugin: 'audit-log', file: opts.file, what, error, counters };
    if (api) api.emit('audit-error', event);
    else if (pending.length < 16) pending.push(event);
  };
  const { trail, release } = openTrail(
    {
      file: opts.file,
      maxSize: opts.maxSize,
      keep: opts.keep,
      durability: opts.durability,
      chain: opts.chain,
      maxBuffered: opts.maxBuffered,
      retryMs: opts.retryMs,
      compress: opts.compress,
      lockWaitMs: opts.lockWaitMs,
    },
    report,
  );
  const ship = opts.ship;
  let closed = false;
  // Serialised here, not through a pino logger: the line is exactly what pino writes (`level` first, no
  // time or base fields), at a third less per record — this runs on the decision path with level `all`.
  const write = (record: Record<string, unknown>) => {
    if (closed) return;
    const line = JSON.stringify(record);
    trail.append(line);
    for (const stream of ship) {
      try {
        stream.write(`${line}\n`);
      } catch {
        /* shipping is best effort; the local trail is the record */
      }
    }
  };
  const redact = createRedactor(opts.redact);
  // The decision being recorded: records are built synchronously, one at a time, so the policyHash
  // function can be told which call it is about (a host swapping policies knows which guard judged it).
  let recordingDecision: Decision | undefined;
  let recordingCall: ToolCall | undefined;
  const settings: RecordSettings = {
    format: opts.format,
    rules: opts.severityRules,
    redact: opts.includeArgs ? redact : () => undefined,
    policyHash: () => {
      try {
        return recordingDecision && recordingCall
          ? opts.policyHash(recordingDecision, recordingCall)
          : undefined;
      } catch {
        return undefined;
      }
    },
    maxPaths: opts.maxPaths,
  };

  return {
    name: 'audit-log',
    file: opts.file,
    counters: trail.counters,
    get healthy() {
      return trail.healthy;
    },
    flush: () => trail.flush(),
    close: () => {
      if (closed) return;
      closed = true;
      trail.flush();
      release();
    },
    apply(hooks, pluginApi) {
      api = pluginApi;
      // `required`: a trail that cannot be written fails every call closed until it can be written again.
      if (opts.required) {
        hooks.beforeToolCall.tap({ stage: Stage.GUARD }, () =>
          trail.healthy
            ? undefined
            : {
                action: 'deny',
                code: 'AUDIT_UNAVAILABLE',
                reason: `the audit trail ${opts.file} cannot be written and audit is required`,
                hint: 'Ask the user to fix the audit trail (disk full, permissions) before retrying.',
              },
        );
      }
      // Failures from before the guard existed (the file could not be opened) are replayed on the next turn,
      // once the host has had the chance to listen on guard.events.
      if (pending.length > 0)
        setImmediate(() => {
          for (const event of pending.splice(0)) pluginApi.emit('audit-error', event);
        });
      // Synchronous taps: core awaits observers before check() resolves, so the record is on disk by then.
      hooks.onViolation.tap({ stage: Stage.AUDIT }, (violation) => {
        const { decision, call, ctx, finding } = violation;
        recordingDecision = decision;
        recordingCall = call;
        write(buildRecord('SECURITY_VIOLATION', decision, call, ctx, finding, settings));
      });
      hooks.onDecision.tap({ stage: Stage.AUDIT }, (decision, call, ctx) => {
        if (decision.action === 'deny') return; // onViolation records it
        // Wild mode bypasses every check: its approvals are always on record, whatever the level.
        const wild = decision.approval?.by === 'wild-mode';
        // A call run inside the OS sandbox instead of denied is on record too: analysis could not prove it.
        if (opts.level !== 'all' && !wild && !decision.sandboxed) return;
        const finding: Finding | undefined = decision.reasons[0];
        recordingDecision = decision;
        recordingCall = call;
        write(buildRecord('DECISION', decision, call, ctx, finding, settings));
      });
    },
  };
}
