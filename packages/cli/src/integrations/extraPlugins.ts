import { openSync } from 'node:fs';
import type { ReadStream, WriteStream } from 'node:tty';
import type { GuardPlugin } from '@toolgate/core';
import { UsageError } from '../exitCodes.js';
import { APPROVAL_STRATEGIES } from './approvalStrategies.js';

export interface ExtraPluginOptions {
  /** Audit trail file (every decision). */
  audit?: string;
  /** Absent: no approvals plugin (the host settles prompts itself, as Claude Code's `ask` does). */
  approvals?: string;
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
  plugins: GuardPlugin[];
  /** Releases what the plugins hold open (the terminal): without it the process would never exit. */
  close(): void;
}

/**
 * Audit-log and approvals plugins from the integration commands' flags (`--audit`, `--approvals`). Each is
 * imported only when asked for: a hook runs before every tool call, and loading costs time there.
 */
export async function extraPlugins(options: ExtraPluginOptions): Promise<ExtraPlugins> {
  const plugins: GuardPlugin[] = [];
  let terminal: Awaited<ReturnType<typeof controllingTerminal>> | undefined;
  if (options.audit !== undefined) {
    if (options.audit.trim() === '') throw new UsageError('--audit must name a file');
    const { auditLog } = await import('@toolgate/audit-log');
    plugins.push(auditLog({ file: options.audit, level: 'all' }));
  }
  const name = options.approvals;
  if (name === undefined) return { plugins, close() {} };
  if (!(APPROVAL_STRATEGIES as readonly string[]).includes(name)) {
    throw new UsageError(
      `--approvals must be one of ${APPROVAL_STRATEGIES.join(', ')}, got ${JSON.stringify(name)}`,
    );
  }
  if (name === 'tty') terminal = await controllingTerminal();
  const { approvals, autoAllow, autoDeny, tty } = await import('@toolgate/approvals');
  const strategy = name === 'auto-allow' ? autoAllow() : terminal ? tty(terminal) : autoDeny();
  plugins.push(approvals({ strategy }));
  return {
    plugins,
    close() {
      terminal?.input.destroy();
      terminal?.output.destroy();
    },
  };
}
