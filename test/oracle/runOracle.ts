import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { CallContext } from '@toolgate/core';
import { extractAccesses } from '@toolgate/shell';
import { claimsOf, isCovered, isWithin } from './coverage.js';
import { copyTree, type ScratchTree, type TreeSnapshot } from './scratchTree.js';
import { type KernelAccess, type Shell, traceCommand } from './traceCommand.js';

/** What the oracle found for one command under one shell. */
export interface Verdict {
  cmd: string;
  shell: Shell;
  /** toolgate said uncertain: the call is denied, so every access is covered. */
  uncertain: boolean;
  /** Reads, writes and lists inside the scratch tree that no certain access covers. */
  uncovered: KernelAccess[];
  /** Existence/metadata checks no access covers (reported, not asserted). */
  uncoveredStats: KernelAccess[];
  /** What toolgate reported (`op[*] path`, `?` when uncertain), for triage. */
  claimed: string[];
  /** How many operations inside the scratch tree the kernel performed (stat-only excluded). */
  touched: number;
  exitCode: number | null;
  timedOut: boolean;
  stderr: string;
}

// The system's programs, and the Node running the tests (npm and node may live elsewhere, e.g. under nvm).
const RUN_PATH = [...new Set([dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'])];

/** Replaces the corpus placeholders with this tree's absolute paths. */
export function instantiate(cmd: string, tree: ScratchTree): string {
  return cmd
    .replaceAll('@OUT@', tree.outside)
    .replaceAll('@HOME@', tree.home)
    .replaceAll('@WS@', tree.ws)
    .replaceAll('@ROOT@', tree.root);
}

/** The environment of a run, identical for the shell and for the extraction's context. */
export function runEnv(tree: ScratchTree): Record<string, string> {
  const refused = 'http://127.0.0.1:9';
  return {
    PATH: RUN_PATH.join(':'),
    HOME: tree.home,
    PWD: tree.ws,
    USER: 'agent',
    LC_ALL: 'C',
    TERM: 'dumb',
    // No network here anyway; a refused local proxy makes any attempt fail at once instead of waiting.
    http_proxy: refused,
    https_proxy: refused,
    HTTP_PROXY: refused,
    HTTPS_PROXY: refused,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'agent',
    GIT_AUTHOR_EMAIL: 'agent@example.invalid',
    GIT_COMMITTER_NAME: 'agent',
    GIT_COMMITTER_EMAIL: 'agent@example.invalid',
    GIT_TERMINAL_PROMPT: '0',
    npm_config_update_notifier: 'false',
    // npm's debug log under ~/.npm/_logs is the program's own state, not an effect of the command (the
    // usability judgement 1); with no log kept npm writes nothing there, so what it does write is seen.
    npm_config_logs_max: '0',
    npm_config_offline: 'true',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
}

function existingPaths(root: string): Set<string> {
  const out = new Set<string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      out.add(p);
      if (lstatSync(p).isDirectory()) walk(p);
    }
  };
  walk(root);
  return out;
}

/**
 * Extracts toolgate's accesses for `template` instantiated in a fresh copy of the scratch tree, then runs
 * it there for real under strace and judges every operation the kernel performed inside the tree.
 */
export async function judgeCommand(
  template: string,
  shell: Shell,
  snapshot: TreeSnapshot,
  dir: string,
  timeoutMs: number,
): Promise<Verdict> {
  const tree = copyTree(snapshot, dir);
  const cmd = instantiate(template, tree);
  const env = runEnv(tree);
  const ctx: CallContext = {
    sessionId: 'oracle',
    agentId: 'oracle',
    cwd: tree.ws,
    workspace: tree.ws,
    home: tree.home,
    env,
  };
  const extraction = extractAccesses(cmd, ctx);
  const claims = claimsOf(extraction.accesses);
  const before = existingPaths(tree.root);
  const logDir = `${dir}.strace`;
  const run = await traceCommand({ shell, command: cmd, cwd: tree.ws, env, logDir, timeoutMs });
  const inTree = run.accesses.filter((k) => isWithin(k.path, tree.root) || isWithin(k.named, tree.root));
  const covered = (k: KernelAccess): boolean => {
    if (extraction.uncertain || isCovered(k, claims)) return true;
    // An atomic replace (`sed -i`, git's index.lock): a temp file the command created and renamed onto a
    // path is a write of that path.
    const dest = inTree.find((r) => r.renamedTo !== undefined && r.path === k.path)?.renamedTo;
    return (
      k.op === 'write' &&
      dest !== undefined &&
      !before.has(k.path) &&
      isCovered({ ...k, path: dest, named: dest }, claims)
    );
  };
  const checked = inTree.filter((k) => k.op !== 'stat');
  const dedupe = (ks: KernelAccess[]) => {
    const seen = new Set<string>();
    return ks.filter((k) => {
      const key = `${k.op} ${k.path} ${k.syscall}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  };
  // Paths relative to the tree, so a report reads the same on every run and every machine.
  const shown = (ks: KernelAccess[]) =>
    dedupe(ks).map((k) => ({
      ...k,
      path: k.path.replace(tree.root, '<tree>'),
      named: k.named.replace(tree.root, '<tree>'),
    }));
  // Removed as it goes (in the background of the next run): 1000 trees and their logs are ~70,000 files,
  // which one rm at the end takes minutes to delete on a loaded machine. ORACLE_KEEP=1 keeps them.
  if (!process.env.ORACLE_KEEP)
    await Promise.all([
      rm(dir, { recursive: true, force: true }),
      rm(logDir, { recursive: true, force: true }),
    ]);
  return {
    cmd: template,
    shell,
    uncertain: extraction.uncertain,
    claimed: extraction.accesses.map(
      (a) =>
        `${a.op}${a.scope === 'subtree' ? '*' : ''} ${a.certain ? (a.realPath ?? '').replaceAll(tree.root, '<tree>') : `? ${(a.reason ?? '').replaceAll(tree.root, '<tree>')}`}`,
    ),
    uncovered: shown(checked.filter((k) => !covered(k))),
    // bash checks $PWD and its parents at startup: the shell's own, not the command's.
    uncoveredStats: shown(
      inTree.filter((k) => k.op === 'stat' && k.path !== tree.ws && k.path !== tree.root && !covered(k)),
    ),
    touched: checked.length,
    exitCode: run.exitCode,
    timedOut: run.timedOut,
    stderr: run.stderr,
  };
}

/** Runs `tasks` with at most `limit` in flight (the machine's cores are shared). */
export async function pool<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const out: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      const task = tasks[i];
      if (task) out[i] = await task();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return out;
}

/** Programs the oracle and its corpus need; `.ci/run` installs the same list. */
export const REQUIRED_PROGRAMS = [
  'strace',
  'dash',
  'bash',
  'git',
  'curl',
  'wget',
  'jq',
  'sqlite3',
  'zip',
  'xxd',
  'file',
  'column',
  'make',
  'perl',
  'python3',
  'ssh',
  'strings',
  'node',
  'npm',
];

/**
 * The message the oracle fails with when a program it needs is missing: a missing program would make its
 * commands trivially "covered" (the shell says command not found and touches nothing), so it never skips.
 */
export function missingPrograms(): string | null {
  const missing = REQUIRED_PROGRAMS.filter((tool) => !RUN_PATH.some((d) => existsSync(join(d, tool))));
  if (missing.length === 0) return null;
  return `not installed: ${missing.join(', ')} — .ci/run should have installed them (apt-get install -y strace dash …)`;
}
