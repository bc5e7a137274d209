import { execFileSync } from 'node:child_process';
import { lstatSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Access, CallContext } from '@toolgate/core';
import { extractAccesses } from '../../src/index.js';

/**
 * A stand-in for the policy's existence-aware walk, for tests: does this call touch a file named `.env`
 * (the issue's `**\/.env` deny)? Uncertain accesses deny. A subtree access walks what exists beneath its
 * root without following links, skips what its filter skips, and denies on a `.env` file it reaches
 * (a `list` access judges directories only, so it never reaches one), and denies when what lies beneath
 * is unknown (`unknownContents`). A path access denies on `.env`.
 */
export function touchesEnv(accesses: readonly Access[]): string | null {
  for (const a of accesses) {
    if (!a.certain || a.realPath === null) return `uncertain: ${a.reason}`;
    if (a.scope === 'path') {
      if (basename(a.realPath) === '.env') return `${a.op} ${a.realPath}`;
      continue;
    }
    if (a.op === 'list') continue;
    // The root itself is judged too (`rg KEY .env` searches that one file).
    if (basename(a.realPath) === '.env') return `${a.op}* ${a.realPath}`;
    // The line may write into the subtree first: the policy takes the worst case.
    if (a.unknownContents !== undefined) return `${a.op}* ${a.realPath}: ${a.unknownContents}`;
    const hit = walk(a.realPath, '', a);
    if (hit !== null) return `${a.op}* ${hit}`;
  }
  return null;
}

function walk(root: string, rel: string, a: Access): string | null {
  let names: string[];
  try {
    names = readdirSync(rel === '' ? root : join(root, rel));
  } catch {
    return null;
  }
  for (const n of names) {
    const r = rel === '' ? n : `${rel}/${n}`;
    const st = lstatSync(join(root, r));
    const dir = st.isDirectory();
    if (a.filter?.skips(r, dir)) continue;
    if (dir) {
      const hit = walk(root, r, a);
      if (hit !== null) return hit;
    } else if (n === '.env') return join(root, r);
  }
  return null;
}

export function context(cwd: string): CallContext {
  return {
    sessionId: 's',
    agentId: 'a',
    cwd,
    workspace: cwd,
    home: '/home/agent',
    env: { HOME: '/home/agent' },
  };
}

/** The verdict under the `**\/.env` deny: `deny` (with why) or `allow`. */
export function verdict(cmd: string, cwd: string): string {
  const why = touchesEnv(extractAccesses(cmd, context(cwd)).accesses);
  return why === null ? 'allow' : `deny (${why})`;
}

export function sh(cwd: string, ...argv: string[]): string {
  return execFileSync(argv[0]!, argv.slice(1), {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  });
}
