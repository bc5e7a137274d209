import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Access, CallContext } from '@toolgate/core';
import { extractAccesses } from '../../src/index.js';

/** A real tree: `ws/src/{a.txt, link -> ../../outside, flink -> ../../outside/canary}`, `outside/canary`. */
export interface ScratchTree {
  root: string;
  ws: string;
  outside: string;
  ctx: CallContext;
  run(cmd: string): { accesses: Access[]; uncertain: boolean };
}

export function scratchTree(): ScratchTree {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-prog-')));
  const ws = join(root, 'ws');
  const outside = join(root, 'outside');
  mkdirSync(join(ws, 'src', 'sub'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'canary'), 'canary\n');
  writeFileSync(join(ws, 'src', 'a.txt'), 'a\n');
  writeFileSync(join(ws, 'src', 'sub', 'b.txt'), 'b\n');
  symlinkSync('../../outside', join(ws, 'src', 'link'));
  symlinkSync('../../outside/canary', join(ws, 'src', 'flink'));
  symlinkSync('src', join(ws, 'srclink'));
  const ctx: CallContext = {
    sessionId: 's',
    agentId: 'a',
    cwd: ws,
    workspace: ws,
    home: join(root, 'home'),
    env: {},
  };
  return { root, ws, outside, ctx, run: (cmd) => extractAccesses(cmd, ctx) };
}

/** The accesses of one op on one real path. */
export function on(accesses: readonly Access[], op: string, realPath: string): Access[] {
  return accesses.filter((a) => a.op === op && a.realPath === realPath);
}
