import { openSync } from 'node:fs';
import type { ReadStream, WriteStream } from 'node:tty';
import type { ApprovalStrategy } from '@toolgate/approvals';
import type { AuditLogPlugin } from '@toolgate/audit-log';
import type { Decision, GuardPlugin, ToolCall } from '@toolgate/core';
import type { CompiledPolicy } from '@toolgate/folder-rules';
import { UsageError } from '../exitCodes.js';
import { APPROVAL_STRATEGIES } from './approvalStrategies.js';
import { dialectSettings } from './dialectSettings.js';

export interface ExtraPluginOptions {
  /** Audit trail file (every decision). */
  audit?: string;
  /** `false` (`--no-dialect-audit`): no trail from the dialect's own settings. */
  dialectAudit?: boolean;
  /** Fail closed when the audit trail cannot be written (`--audit-required`). */
  auditRequired?: boolean;
  /** Absent: no approvals plugin (the host settles prompts itself, as Claude Code's `ask` does). */
  approvals?: string;
  /** `--dialect`, when given: decides which packages load before the policy does. */
  dialect?: string;
  /** `--webhook <url…>`: violation receivers (besides those the environment names). */
  webhook?: string[];
  /**
   * The web console's desk (`--console`): prompts wait there for a person instead of being denied by
   * `auto-deny`; with `tty`, the terminal and the console both ask and the first answer wins. `auto-allow`
   * stays as it is (nothing waits).
   */
  desk?: ApprovalStrategy;
  /** Save confirmations per session where the dialect keeps them (wolo, with `-r <session>`). */
  persistSessions?: boolean;
  /**
   * `--redis <url>`: prompts are asked of the fleet's desks on this Redis (`@toolgate/store-redis`) and
   * sessions' grants live there, shared with every gateway on it.
   */
  redis?: string;
  /** The hash of the policy that judged a call, for the audit records (`--watch-policy` changes it). */
  policyHash?: (decision: Decision, call: ToolCall) => string | undefined;
  env?: NodeJS.ProcessEnv;
}

/**
 * The terminal the user sits at, opened directly: for `mcp` and `hook`, stdin and stdout are the protocol
 * channel, so a question asked there would corrupt it (and an answer read there would be a client message).
 */
async function controllingTerminal(): Promise<{ input: ReadStream; output: WriteStream }> {
  // node:tty (and the net module under it) loads only here: a hook call that asks nobody must not pay for it.
  const { ReadStream, WriteStream } = await import('node:tty');
  try {
    const fd = openSync('/dev/tty', 'r+');
    return { input: new ReadStream(fd), output: new WriteStream(fd) };
  } catch (error) {
    throw new UsageError(
      `--approvals tty needs a controlling terminal (/dev/tty): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

export interface ExtraPlugins {
  /**
   * The plugins for a loaded policy: its dialect's audit trail and confirmation cap join the flags'. Made
   * once, for the first policy: a policy reloaded later (`--watch-policy`) keeps the same plugins — one
   * trail, one approvals plugin with its cancelled sessions.
   */
  pluginsFor(policy: CompiledPolicy, home: string): Promise<GuardPlugin[]>;
  /** The audit plugin, when `--audit` was given: commands report its failures loudly. */
  audit?: AuditLogPlugin;
  /** Releases what the plugins hold open (the terminal): without it the process would never exit. */
  close(): void;
}

/** Webhook receivers configured in the environment (seed 001's variable or toolgate's), or SMTP. */
function webhooksConfigured(env: NodeJS.ProcessEnv): boolean {
  return ['TOOLGATE_VIOLATION_WEBHOOKS', 'WUNDERLAND_VIOLATION_WEBHOOKS', 'TOOLGATE_SMTP_HOST'].some(
    (k) => (env[k] ?? '').trim() !== '',
  );
}

/**
 * Audit-log, approvals and webhooks plugins from the integration commands' flags (`--audit`, `--approvals`,
 * `--webhook`), the environment (`TOOLGATE_VIOLATION_WEBHOOKS`, `WUNDERLAND_VIOLATION_WEBHOOKS`, SMTP) and
 * the policy's dialect (wolo `audit_denied`/`max_confirmations_per_session`, Wunderland's violations log).
 * Each package is imported only when it may be needed: a hook runs before every tool call.
 */
export async function extraPlugins(options: ExtraPluginOptions): Promise<ExtraPlugins> {
  const env = options.env ?? process.env;
  if (options.audit !== undefined && options.audit.trim() === '')
    throw new UsageError('--audit must name a file');
  if (options.auditRequired && options.audit === undefined)
    throw new UsageError('--audit-required needs --audit <file>');
  const webhookUrls = options.webhook ?? [];
  for (const url of webhookUrls)
    if (!/^https?:\/\//.test(url))
      throw new UsageError(`--webhook must be an http(s) URL, got ${JSON.stringify(url)}`);
  const name = options.approvals;
  if (name !== undefined && !(APPROVAL_STRATEGIES as readonly string[]).includes(name)) {
    throw new UsageError(
      `--approvals must be one of ${APPROVAL_STRATEGIES.join(', ')}, got ${JSON.stringify(name)}`,
    );
  }
  // Each package is imported only when something asks for it: a hook runs before every tool call. The
  // dialect's own trail (wolo, Wunderland) is known once the policy is loaded: imported then.
  const auditMod = options.audit !== undefined ? await import('@toolgate/audit-log') : undefined;
  const webhooksMod =
    webhookUrls.length > 0 || webhooksConfigured(env) ? await import('@toolgate/webhooks') : undefined;
  const approvalsMod = name !== undefined ? await import('@toolgate/approvals') : undefined;
  if (options.redis !== undefined && !/^rediss?:\/\/./.test(options.redis))
    throw new UsageError(`--redis must be a redis:// or rediss:// URL, got ${JSON.stringify(options.redis)}`);
  const fleet =
    options.redis !== undefined && approvalsMod ? await redisParts(options.redis, approvalsMod) : undefined;
  const terminal = name === 'tty' ? await controllingTerminal() : undefined;
  // Every record names the policy version that judged it: the caller's answer (a reloading host), else the
  // hash of the policy these plugins were made for (known before the first decision).
  let loadedHash: string | undefined;
  const policyHash = options.policyHash ?? (() => loadedHash);
  // The flag's trail does not depend on the policy: opened now, so a command can report a trail it cannot
  // open before it serves anything.
  const audit =
    auditMod && options.audit !== undefined
      ? auditMod.auditLog({
          file: options.audit,
          level: 'all',
          required: options.auditRequired === true,
          policyHash,
        })
      : undefined;
  let made: GuardPlugin[] | undefined;
  return {
    ...(audit ? { audit } : {}),
    async pluginsFor(policy, home) {
      if (made) return made;
      loadedHash = policy.hash;
      const plugins: GuardPlugin[] = [];
      const settings = dialectSettings(policy, home);
      if (audit) plugins.push(audit);
      else if (settings.audit && options.dialectAudit !== false)
        plugins.push((await import('@toolgate/audit-log')).auditLog({ ...settings.audit, policyHash }));
      if (approvalsMod && name !== undefined) {
        const { approvals, autoAllow, autoDeny, firstOf, tty } = approvalsMod;
        // Everyone who may answer is asked at once; the first answer wins and the others are withdrawn.
        // Nobody to ask (auto-deny without a console or a fleet): denied.
        const askers: ApprovalStrategy[] =
          name === 'auto-allow'
            ? [autoAllow()]
            : [
                ...(terminal ? [tty(terminal)] : []),
                ...(options.desk ? [options.desk] : []),
                ...(fleet ? [fleet.strategy] : []),
              ];
        const [only] = askers;
        const strategy =
          askers.length === 0 ? autoDeny() : askers.length === 1 && only ? only : firstOf(askers);
        plugins.push(
          approvals({
            strategy,
            ...(settings.maxConfirmationsPerSession !== undefined
              ? { maxConfirmationsPerSession: settings.maxConfirmationsPerSession }
              : {}),
            // The fleet's store holds sessions for every gateway on it; else the dialect's directory.
            ...(fleet
              ? { store: fleet.store }
              : settings.sessionsDir && options.persistSessions
                ? { dir: settings.sessionsDir }
                : {}),
          }),
        );
      }
      if (webhooksMod)
        plugins.push(
          webhooksMod.webhooks({
            env,
            ...(webhookUrls.length > 0 ? { targets: webhookUrls.map((url) => ({ url })) } : {}),
          }),
        );
      made = plugins;
      return plugins;
    },
    close() {
      terminal?.input.destroy();
      terminal?.output.destroy();
      fleet?.close();
    },
  };
}

/**
 * Approvals over Redis for `--redis`: questions through `redisApprovalBus`, grants in `redisGrantStore`.
 * Connection problems are on stderr once per distinct message (a retry loop must not flood it); a call
 * asked while Redis is away is denied naming it.
 */
async function redisParts(url: string, approvalsMod: typeof import('@toolgate/approvals')) {
  const { redisApprovalBus, redisGrantStore } = await import('@toolgate/store-redis');
  const { hostname } = await import('node:os');
  let last: string | undefined;
  const onError = (error: Error) => {
    if (error.message === last) return;
    last = error.message;
    process.stderr.write(`toolgate: redis: ${error.message}\n`);
  };
  const bus = redisApprovalBus({ url, onError });
  const store = redisGrantStore({ url, onError });
  return {
    strategy: approvalsMod.busStrategy(bus, { origin: `${hostname()}:${process.pid}` }),
    store,
    close() {
      void bus.close().catch(() => {});
      void store.close().catch(() => {});
    },
  };
}
