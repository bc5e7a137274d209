import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallContext } from '@toolgate/core';

/** The real filesystem MCP server's entry point, run with `node` as a child process. */
export const FILESYSTEM_SERVER = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-filesystem/dist/index.js',
);

export interface TempWorkspace {
  root: string;
  ws: string;
  outside: string;
  ctx: CallContext;
  /** The server is given the whole temp root: anything the gateway lets through, it would do. */
  serverArgs: string[];
  cleanup(): void;
}

/**
 * root/ws (the agent's workspace: hello.txt, src/a.txt, link → ../outside) and root/outside (secret.txt).
 */
export function tempWorkspace(): TempWorkspace {
  const root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-mcp-')));
  const ws = join(root, 'ws');
  const outside = join(root, 'outside');
  mkdirSync(join(ws, 'src'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(ws, 'hello.txt'), 'hello from the workspace\n');
  writeFileSync(join(ws, 'src', 'a.txt'), 'a\n');
  writeFileSync(join(outside, 'secret.txt'), 'top secret\n');
  symlinkSync(outside, join(ws, 'link'));
  const home = join(root, 'home');
  mkdirSync(home);
  const ctx: CallContext = {
    sessionId: `s-${Math.random().toString(36).slice(2)}`,
    agentId: 'test-agent',
    cwd: ws,
    workspace: ws,
    home,
    env: { HOME: home },
  };
  return {
    root,
    ws,
    outside,
    ctx,
    serverArgs: [FILESYSTEM_SERVER, root],
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
