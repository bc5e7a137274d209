import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import type { RecordFilter } from '@toolgate/audit-log';
import { expandPath, type Severity } from '@toolgate/core';
import type { Command } from 'commander';
import { Exit, UsageError } from '../exitCodes.js';

type AuditLogModule = typeof import('@toolgate/audit-log');
// Loaded when an audit subcommand runs, not when the CLI starts: every `toolgate` invocation (a coding
// assistant's hook runs one per tool call) would otherwise pay for pino.
const loadAuditLog = (): Promise<AuditLogModule> => import('@toolgate/audit-log');

export interface AuditIo {
  out: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

export interface AuditFilterFlags {
  file?: string;
  agent?: string;
  session?: string;
  severity?: string;
  tool?: string;
  decision?: string;
  code?: string;
  since?: string;
  until?: string;
  path?: string;
  all?: boolean;
  json?: boolean;
  color?: boolean;
}

const SEVERITIES: readonly Severity[] = ['critical', 'high', 'medium', 'low'];
const DECISIONS = ['allow', 'deny', 'prompt'] as const;

/**
 * A trail path as given: `~`, `~/…` and `~user/…` expanded, as the shell would have done had the value not
 * been quoted (`--file '~/x.log'` used to name a directory `~` in the cwd and read nothing), then absolute.
 */
function givenPath(value: string, what: string, env: NodeJS.ProcessEnv): string {
  if (!value.startsWith('~')) return resolve(value);
  const home = env.HOME && isAbsolute(env.HOME) ? env.HOME : homedir();
  const cwd = process.cwd();
  const x = expandPath(value, { cwd, workspace: cwd, home, env }, { vars: false });
  if (!x.certain) throw new UsageError(`${what} ${JSON.stringify(value)}: ${x.reason ?? 'cannot expand ~'}`);
  return resolve(x.value);
}

/** `--file`, else `$TOOLGATE_AUDIT_FILE`, else the plugin's default trail. */
export function trailFile(
  flags: { file?: string },
  env: NodeJS.ProcessEnv,
  audit: Pick<AuditLogModule, 'defaultTrailFile'>,
): string {
  if (flags.file !== undefined) return givenPath(flags.file, '--file', env);
  if (env.TOOLGATE_AUDIT_FILE) return givenPath(env.TOOLGATE_AUDIT_FILE, 'TOOLGATE_AUDIT_FILE', env);
  return resolve(audit.defaultTrailFile());
}

/** `2026-02-09T10:30:00Z`, `2026-02-09`, or a duration back from now: `30m`, `24h`, `7d`. */
export function parseTime(flag: string, value: string, now = Date.now()): number {
  const rel = /^(\d+)(s|m|h|d)$/.exec(value);
  if (rel)
    return now - Number(rel[1]) * { s: 1e3, m: 6e4, h: 36e5, d: 864e5 }[rel[2] as 's' | 'm' | 'h' | 'd'];
  const t = Date.parse(value);
  if (!Number.isFinite(t))
    throw new UsageError(
      `audit: ${flag} must be an ISO time or a duration like 24h, got ${JSON.stringify(value)}`,
    );
  return t;
}

export function toFilter(
  flags: AuditFilterFlags,
  env: NodeJS.ProcessEnv,
  audit: Pick<AuditLogModule, 'defaultTrailFile'>,
): RecordFilter {
  const filter: RecordFilter = { file: trailFile(flags, env, audit) };
  if (flags.agent !== undefined) filter.agentId = flags.agent;
  if (flags.session !== undefined) filter.sessionId = flags.session;
  if (flags.tool !== undefined) filter.tool = flags.tool;
  if (flags.code !== undefined) filter.code = flags.code;
  if (flags.path !== undefined) filter.path = flags.path;
  if (flags.severity !== undefined) {
    const list = flags.severity.split(',').map((s) => s.trim());
    for (const s of list) {
      if (!(SEVERITIES as readonly string[]).includes(s))
        throw new UsageError(
          `audit: --severity must be among ${SEVERITIES.join(', ')}, got ${JSON.stringify(s)}`,
        );
    }
    filter.severity = list as Severity[];
  }
  if (flags.decision !== undefined) {
    if (!(DECISIONS as readonly string[]).includes(flags.decision))
      throw new UsageError(
        `audit: --decision must be one of ${DECISIONS.join(', ')}, got ${JSON.stringify(flags.decision)}`,
      );
    filter.decision = flags.decision as (typeof DECISIONS)[number];
  }
  if (flags.since !== undefined) filter.startTime = parseTime('--since', flags.since);
  if (flags.until !== undefined) filter.endTime = parseTime('--until', flags.until);
  if (flags.all) filter.level = 'all';
  return filter;
}

const COLORS: Record<string, string> = {
  critical: '\x1b[1;31m',
  high: '\x1b[31m',
  medium: '\x1b[33m',
  low: '\x1b[36m',
};

function useColor(flags: { color?: boolean }, io: AuditIo): boolean {
  if (flags.color === false || io.env.NO_COLOR) return false;
  return Boolean(io.env.FORCE_COLOR) || io.out.isTTY === true;
}

/** One record as one human-readable line (`tail`, `query` without `--json`). */
export function formatRecord(r: Record<string, unknown>, color: boolean): string {
  const sev = String(r.severity ?? '?');
  const paint = (code: string | undefined, s: string) => (color && code ? `${code}${s}\x1b[0m` : s);
  const decision = String(r.decision ?? (r.level === 'SECURITY_VIOLATION' ? 'deny' : '?'));
  const rule = r.rule as { source?: string; pattern?: string } | undefined;
  const where = rule ? ` [${rule.source ?? rule.pattern ?? ''}]` : '';
  const approval = r.approval as { approved?: boolean; by?: string } | undefined;
  return [
    paint(color ? '\x1b[2m' : undefined, String(r.timestamp ?? '')),
    paint(COLORS[sev], sev.toUpperCase().padEnd(8)),
    paint(
      decision === 'deny' ? '\x1b[31m' : decision === 'allow' ? '\x1b[32m' : '\x1b[33m',
      decision.padEnd(6),
    ),
    `${r.agentId ?? '?'}${r.sessionId ? `/${r.sessionId}` : ''}`,
    String(r.toolId ?? '?'),
    String(r.operation ?? ''),
    String(r.attemptedPath ?? '-'),
    `${r.code ? `${r.code}: ` : ''}${r.reason ?? ''}${where}${approval ? ` (by ${approval.by})` : ''}`,
  ].join(' ');
}

export async function runQuery(flags: AuditFilterFlags & { limit?: string }, io: AuditIo): Promise<number> {
  const limit = flags.limit === undefined ? undefined : Number(flags.limit);
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0))
    throw new UsageError(
      `audit query: --limit must be a positive integer, got ${JSON.stringify(flags.limit)}`,
    );
  const audit = await loadAuditLog();
  const records = await audit.queryViolations({
    ...toFilter(flags, io.env, audit),
    ...(limit ? { limit } : {}),
  });
  const color = !flags.json && useColor(flags, io);
  for (const r of records)
    io.out.write(
      `${flags.json ? JSON.stringify(r) : formatRecord(r as unknown as Record<string, unknown>, color)}\n`,
    );
  return Exit.OK;
}

export async function runStats(flags: AuditFilterFlags, io: AuditIo): Promise<number> {
  const audit = await loadAuditLog();
  const stats = await audit.getStats(toFilter({ ...flags, all: true }, io.env, audit));
  if (flags.json) {
    io.out.write(`${JSON.stringify(stats)}\n`);
    return Exit.OK;
  }
  const table = (title: string, map: Record<string, number>) => {
    const rows = Object.entries(map).sort((a, b) => b[1] - a[1]);
    io.out.write(`${title}:\n`);
    for (const [k, v] of rows) io.out.write(`  ${k.padEnd(24)} ${v}\n`);
  };
  io.out.write(`total: ${stats.total}\n`);
  table('by severity', stats.bySeverity);
  table('by decision', stats.byDecision);
  table('by agent', stats.byAgent);
  table('by tool', stats.byTool);
  if (stats.invalid > 0) io.out.write(`unreadable lines: ${stats.invalid}\n`);
  return Exit.OK;
}

export async function runVerify(flags: { file?: string; json?: boolean }, io: AuditIo): Promise<number> {
  const audit = await loadAuditLog();
  const report = await audit.verifyChain(trailFile(flags, io.env, audit));
  if (flags.json) io.out.write(`${JSON.stringify(report)}\n`);
  else if (report.ok)
    io.out.write(
      `ok: ${report.records} records in ${report.files.length} file(s), ${report.fromGenesis ? 'from the first record' : 'starting after records rotated away'}${report.tornTail ? `; ${report.tornTail.file}:${report.tornTail.line} ends with a record cut short by a crash (never acknowledged; the next writer removes it)` : ''}\n`,
    );
  else
    io.out.write(
      `BROKEN at ${report.broken!.file}:${report.broken!.line}: ${report.broken!.reason} (${report.records} records verified before it)\n`,
    );
  return report.ok ? Exit.OK : Exit.FAILED;
}

/**
 * `tail [-n N] [-f]`: the last records, then (with -f) every new one as it is written, across rotations:
 * the open file is drained before switching to the new one, so no record is skipped.
 */
function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0; // no trail yet: follow waits for it
  }
}

export async function runTail(
  flags: AuditFilterFlags & { lines?: string; follow?: boolean; interval?: string },
  io: AuditIo,
  signal?: AbortSignal,
): Promise<number> {
  const n = Number(flags.lines ?? '10');
  if (!(Number.isInteger(n) && n >= 0))
    throw new UsageError(`audit tail: -n must be a non-negative integer, got ${JSON.stringify(flags.lines)}`);
  // Where following starts is fixed when the command starts: records written while the module loads are
  // new records, and are shown.
  const explicit = flags.file ?? (io.env.TOOLGATE_AUDIT_FILE || undefined);
  let start = explicit === undefined ? -1 : sizeOf(trailFile(flags, io.env, { defaultTrailFile: () => '' }));
  const audit = await loadAuditLog();
  const file = trailFile(flags, io.env, audit);
  if (start < 0) start = sizeOf(file);
  const color = !flags.json && useColor(flags, io);
  const print = (r: Record<string, unknown>) =>
    io.out.write(`${flags.json ? JSON.stringify(r) : formatRecord(r, color)}\n`);
  if (n > 0) {
    const last: Record<string, unknown>[] = [];
    for await (const r of audit.readRecords(file)) {
      last.push(r);
      if (last.length > n) last.shift();
    }
    for (const r of last) print(r);
  }
  if (!flags.follow) return Exit.OK;
  await follow(
    file,
    start,
    (line) => {
      try {
        print(JSON.parse(line) as Record<string, unknown>);
      } catch {
        /* a foreign line */
      }
    },
    Number(flags.interval ?? '200'),
    signal,
  );
  return Exit.OK;
}

async function follow(
  file: string,
  from: number,
  onLine: (line: string) => void,
  intervalMs: number,
  signal?: AbortSignal,
): Promise<void> {
  let fd: number | undefined;
  let pos = from;
  let partial = '';
  const buf = Buffer.alloc(65_536);
  const drain = () => {
    if (fd === undefined) return;
    for (;;) {
      const got = readSync(fd, buf, 0, buf.length, pos);
      if (got === 0) break;
      pos += got;
      const text = partial + buf.subarray(0, got).toString('utf8');
      const lines = text.split('\n');
      partial = lines.pop()!;
      for (const l of lines) if (l !== '') onLine(l);
    }
  };
  const poll = () => {
    if (fd === undefined) {
      try {
        fd = openSync(file, 'r');
      } catch {
        return;
      }
    }
    drain();
    let ino: number | undefined;
    try {
      ino = statSync(file).ino;
    } catch {
      /* mid-rotation */
    }
    if (ino !== undefined && ino !== fstatSync(fd).ino) {
      drain(); // the rotated file may have got its last records after the previous read
      closeSync(fd);
      fd = undefined;
      pos = 0;
      partial = '';
      poll();
    }
  };
  await new Promise<void>((resolveDone) => {
    const timer = setInterval(poll, intervalMs);
    poll();
    const stop = () => {
      clearInterval(timer);
      poll();
      if (fd !== undefined) closeSync(fd);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolveDone();
    };
    signal?.addEventListener('abort', stop, { once: true });
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

function filterOptions(cmd: Command): Command {
  return cmd
    .option('--file <path>', 'the trail (default: $TOOLGATE_AUDIT_FILE or ~/.toolgate/audit/violations.log)')
    .option('--agent <id>', 'only this agent')
    .option('--session <id>', 'only this session')
    .option('--severity <list>', 'critical, high, medium, low (comma-separated)')
    .option('--tool <name>', 'only this tool')
    .option('--decision <d>', 'allow, deny or prompt (allow/prompt need level all)')
    .option('--code <code>', 'only this code, e.g. PATH_DENIED')
    .option('--since <time>', 'ISO time or a duration back from now (30m, 24h, 7d)')
    .option('--until <time>', 'ISO time or a duration back from now')
    .option('--path <glob>', 'attempted path glob (** covers dotfiles)')
    .option('--json', 'one JSON record per line')
    .option('--no-color', 'no ANSI colors');
}

export function registerAudit(
  program: Command,
  io: AuditIo = { out: process.stdout, env: process.env },
): void {
  const group = program.command('audit').description('The audit trail: query, stats, tail, verify');
  filterOptions(group.command('query').description('Print matching records (violations unless --all)'))
    .option('--all', 'include DECISION records (level all)')
    .option('--limit <n>', 'the most recent n matches')
    .action(async (flags: AuditFilterFlags & { limit?: string }) => {
      process.exitCode = await runQuery(flags, io);
    });
  filterOptions(
    group.command('stats').description('Count records by severity, decision, agent and tool'),
  ).action(async (flags: AuditFilterFlags) => {
    process.exitCode = await runStats(flags, io);
  });
  group
    .command('tail')
    .description('The last records, human-readable; -f follows new ones across rotations')
    .option('--file <path>', 'the trail (default: $TOOLGATE_AUDIT_FILE or ~/.toolgate/audit/violations.log)')
    .option('-n, --lines <n>', 'records to show first (default 10)')
    .option('-f, --follow', 'keep printing records as they are written (until Ctrl-C)')
    .option('--interval <ms>', 'how often to look for new records with -f (default 200)')
    .option('--json', 'one JSON record per line')
    .option('--no-color', 'no ANSI colors')
    .action(async (flags: AuditFilterFlags & { lines?: string; follow?: boolean; interval?: string }) => {
      process.exitCode = await runTail(flags, io);
    });
  group
    .command('verify')
    .description('Check the hash chain; exit 1 and name the first broken link if records were altered')
    .option('--file <path>', 'the trail (default: $TOOLGATE_AUDIT_FILE or ~/.toolgate/audit/violations.log)')
    .option('--json', 'the report as JSON')
    .action(async (flags: { file?: string; json?: boolean }) => {
      process.exitCode = await runVerify(flags, io);
    });
}
