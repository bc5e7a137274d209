import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CallContext } from '@toolgate/core';
import { gitignore, PROJECT_FILES } from './projectFiles.js';

/** The three workspaces: A has no `.env`; B a `.env` the `.gitignore` lists; C a `.env` it does not list. */
export type WorkspaceName = 'A' | 'B' | 'C';

export interface Workspaces {
  /** The folder holding every workspace and the fake home; remove it with `dispose()`. */
  root: string;
  contexts: Record<WorkspaceName, CallContext>;
  dispose(): void;
}

// Outside /tmp on purpose: the policy makes /tmp read-write, which would hide a write escaping the workspace.
// Outside this repository too: a project nested in toolgate's own pnpm workspace is a package of it for
// `pnpm -r` (pnpm looks upwards for pnpm-workspace.yaml), which no corpus line means. So: the user's cache.
const WORK_DIR = join(homedir(), '.cache', 'toolgate-usability');

const ENV_FILE = 'API_KEY=sk-live-0000\nDATABASE_URL=postgres://app:pw@localhost/app\n';

function git(cwd: string, home: string, args: string[], date: string): void {
  execFileSync('git', args, {
    cwd,
    stdio: 'ignore',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Ann Dev',
      GIT_AUTHOR_EMAIL: 'ann@example.com',
      GIT_COMMITTER_NAME: 'Ann Dev',
      GIT_COMMITTER_EMAIL: 'ann@example.com',
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
    },
  });
}

function writeAll(ws: string, files: Readonly<Record<string, string>>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(ws, rel)), { recursive: true });
    writeFileSync(join(ws, rel), text);
  }
}

/** One project: three commits, a tag, a branch, a modified and an untracked file, two symlinks, ignored files. */
function buildProject(ws: string, home: string, env: 'none' | 'ignored' | 'tracked-able'): void {
  const { 'docs/api.md': api, 'docs/guide.md': guide, ...first } = PROJECT_FILES;
  mkdirSync(ws, { recursive: true });
  writeAll(ws, { ...first, '.gitignore': gitignore(env !== 'tracked-able') });
  chmodSync(join(ws, 'scripts', 'setup.sh'), 0o755);
  git(ws, home, ['init', '-q', '-b', 'main'], '2026-01-05T10:00:00Z');
  git(ws, home, ['add', '-A'], '2026-01-05T10:00:00Z');
  git(ws, home, ['commit', '-q', '-m', 'Initial commit'], '2026-01-05T10:00:00Z');
  writeAll(ws, { 'docs/api.md': api ?? '', 'docs/guide.md': guide ?? '' });
  git(ws, home, ['add', 'docs'], '2026-01-06T10:00:00Z');
  git(ws, home, ['commit', '-q', '-m', 'docs: guide and API'], '2026-01-06T10:00:00Z');
  git(ws, home, ['tag', 'v0.3.0'], '2026-01-06T10:00:00Z');
  writeAll(ws, { 'src/util.ts': `${PROJECT_FILES['src/util.ts']}export const VERSION = '0.3.1';\n` });
  git(ws, home, ['commit', '-q', '-am', 'util: export VERSION'], '2026-01-07T10:00:00Z');
  git(ws, home, ['branch', 'feature/login'], '2026-01-07T10:00:00Z');
  // Work in progress, as an agent finds it: one modified tracked file, one untracked file, ignored output.
  writeAll(ws, {
    'src/index.ts': `${PROJECT_FILES['src/index.ts']}export const READY = true;\n`,
    'notes.txt': 'remember to bump the version\n',
    'debug.log': 'started\n',
    'dist/index.js': 'export {};\n',
  });
  symlinkSync('v1', join(ws, 'docs', 'latest'));
  symlinkSync('/usr/share/doc', join(ws, 'vendor-docs'));
  if (env !== 'none') writeFileSync(join(ws, '.env'), ENV_FILE);
  // Archives in the ignored dist/ (real tar and zip): one of the sources, one holding a `.env`.
  execFileSync('tar', ['czf', 'dist/src.tgz', 'src'], { cwd: ws, stdio: 'ignore' });
  execFileSync('zip', ['-qr', 'dist/src.zip', 'src'], { cwd: ws, stdio: 'ignore' });
  const secrets = mkdtempSync(join(dirname(ws), 'secrets-'));
  writeFileSync(join(secrets, '.env'), ENV_FILE);
  execFileSync('tar', ['czf', join(ws, 'dist', 'secrets.tgz'), '-C', secrets, '.env'], { stdio: 'ignore' });
  rmSync(secrets, { recursive: true, force: true });
}

/**
 * Builds fresh workspaces A, B and C and one fake home (with `~/.ssh/id_rsa`) under `~/.cache/toolgate-usability/`,
 * and returns a call context for each (cwd = workspace).
 * @example
 * const w = buildWorkspaces();
 * try { await guard.check({ tool: 'Bash', args: { command: 'git status' } }, w.contexts.B); } finally { w.dispose(); }
 */
export function buildWorkspaces(): Workspaces {
  mkdirSync(WORK_DIR, { recursive: true });
  const root = realpathSync(mkdtempSync(join(WORK_DIR, 'run-')));
  const home = join(root, 'home');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY-----\nfake\n');
  writeFileSync(join(home, '.ssh', 'id_rsa.pub'), 'ssh-ed25519 AAAA fake@example\n');
  writeFileSync(join(home, '.bashrc'), 'export EDITOR=vi\n');
  writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = Ann Dev\n\temail = ann@example.com\n');
  const kinds = { A: 'none', B: 'ignored', C: 'tracked-able' } as const;
  const contexts = {} as Record<WorkspaceName, CallContext>;
  for (const name of ['A', 'B', 'C'] as const) {
    const ws = join(root, `ws${name}`);
    buildProject(ws, home, kinds[name]);
    contexts[name] = {
      sessionId: `usability-${name}`,
      agentId: 'agent',
      cwd: ws,
      workspace: ws,
      home,
      env: {
        HOME: home,
        PATH: '/usr/local/bin:/usr/bin:/bin',
        USER: 'agent',
        SHELL: '/bin/bash',
        LANG: 'C.UTF-8',
        TERM: 'xterm-256color',
      },
    };
  }
  return { root, contexts, dispose: () => rmSync(root, { recursive: true, force: true }) };
}
