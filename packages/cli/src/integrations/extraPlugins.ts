import { openSync } from 'node:fs';
import { ReadStream, WriteStream } from 'node:tty';
import type { AuditLogPlugin } from '@toolgate/audit-log';
import type { GuardPlugin } from '@toolgate/core';
import { UsageError } from '../exitCodes.js';
import { APPROVAL_STRATEGIES } from './approvalStrategies.js';

export interface ExtraPluginOptions {
  /** Audit trail file (every decision). */
  audit?: string;
  /** Fail closed when the audit trail cannot be written (`--audit-required`). */
  auditRequired?: boolean;
  /** Absent: no approvals plugin (the host settles prompts itself, as Claude Code's `ask` does). */
  approvals?: string;
}

/**
 * The terminal the user sits at, opened directly: for `mcp` and `hook`, stdin and stdout are the protocol
 * channel, so a question asked there would corrupt it (and an answer read there would be a client message).
 */
function controllingTerminal(): { input: ReadStream; output: WriteStream } {
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
  plugins: GuardPlugin[];
  /** The audit plugin, when `--audit` was given: commands report its failures loudly. */
  audit?: AuditLogPlugin;
  /** Releases what the plugins hold open (the terminal): without it the process would never exit. */
  close(): void;
}

/**
 * Audit-log and approvals plugins from the integration commands' flags (`--audit`, `--approvals`). Each is
 * imported only when asked for: a hook runs before every tool call, and loading costs time there.
 */
export async function extraPlugins(options: ExtraPluginOptions): Promise<ExtraPlugins> {
  const plugins: GuardPlugin[] = [];
  let terminal: ReturnType<typeof controllingTerminal> | undefined;
  let audit: AuditLogPlugin | undefined;
  if (options.audit !== undefined) {
    if (options.audit.trim() === '') throw new UsageError('--audit must name a file');
    const { auditLog } = await import('@toolgate/audit-log');
    audit = auditLog({ file: options.audit, level: 'all', required: options.auditRequired === true });
    plugins.push(audit);
  } else if (options.auditRequired) throw new UsageError('--audit-required needs --audit <file>');
  const name = options.approvals;
  if (name === undefined) return { plugins, ...(audit ? { audit } : {}), close() {} };
  if (!(APPROVAL_STRATEGIES as readonly string[]).includes(name)) {
    throw new UsageError(
      `--approvals must be one of ${APPROVAL_STRATEGIES.join(', ')}, got ${JSON.stringify(name)}`,
    );
  }
  if (name === 'tty') terminal = controllingTerminal();
  const { approvals, autoAllow, autoDeny, tty } = await import('@toolgate/approvals');
  const strategy = name === 'auto-allow' ? autoAllow() : terminal ? tty(terminal) : autoDeny();
  plugins.push(approvals({ strategy }));
  return {
    plugins,
    ...(audit ? { audit } : {}),
    close() {
      terminal?.input.destroy();
      terminal?.output.destroy();
    },
  };
}
