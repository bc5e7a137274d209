import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard, type GuardPlugin, isWithin } from '@toolgate/core';
import type { Tool, ToolExecutionOptions } from 'ai';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { absoluteArgs } from '../src/absoluteArgs.js';
import { guardTools } from '../src/index.js';

// The bypass: the guard judged a relative path against ctx.cwd, the tool's execute resolved it against
// process.cwd(). With ctx.cwd = the workspace and the process somewhere else, `package.json` was allowed as
// <ws>/package.json and read as <process.cwd()>/package.json — another file.
let root: string;
let ws: string;
beforeEach(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-ai-sdk-cwd-')));
  ws = join(root, 'ws');
  mkdirSync(ws);
  writeFileSync(join(ws, 'package.json'), '{"name":"the-workspace-file"}');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const workspaceOnly = (wsDir: () => string): GuardPlugin => ({
  name: 'ws-only',
  policy: true,
  apply(hooks) {
    hooks.collectAccesses.tap('x', (accesses, call, state) =>
      typeof call.args.path === 'string'
        ? [...accesses, state.access(call.args.path, 'read', { origin: 'ws-only:args.path' })]
        : accesses,
    );
    hooks.beforeToolCall.tap('x', (_call, state) => {
      for (const a of state.accesses)
        if (!isWithin(a.realPath ?? '', wsDir()))
          return {
            action: 'deny',
            code: 'PATH_DENIED',
            reason: 'outside',
            access: a,
            allowedPaths: [wsDir()],
          };
      return undefined;
    });
  },
});

const execOptions = { toolCallId: 'c1', messages: [] } as unknown as ToolExecutionOptions;

it('attack: a relative path is executed as the absolute path the guard judged, not against process.cwd()', async () => {
  // The precondition of the attack: the same relative name exists where the process runs, outside the workspace.
  expect(existsSync(join(process.cwd(), 'package.json'))).toBe(true);
  expect(isWithin(process.cwd(), ws)).toBe(false);
  const ctx: CallContext = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home: root, env: {} };
  const seen: string[] = [];
  const tools = guardTools(
    {
      read_file: {
        inputSchema: {},
        execute: async ({ path }: { path: string }) => {
          seen.push(path);
          return readFileSync(path, 'utf8'); // a real tool: relative to process.cwd()
        },
      } as unknown as Tool,
    },
    createGuard({ plugins: [workspaceOnly(() => ws)] }),
    ctx,
  );
  const out = await tools.read_file!.execute!({ path: 'package.json' }, execOptions);
  expect(seen).toEqual([join(ws, 'package.json')]);
  expect(out).toBe('{"name":"the-workspace-file"}');
});

it('absoluteArgs rewrites only arguments an access was read from, nested and listed ones too', () => {
  const access = (raw: string, path: string, origin: string) =>
    ({ op: 'read', scope: 'path', raw, path, realPath: path, origin, certain: true }) as const;
  const input = { path: 'a', paths: ['b', '/abs'], ops: [{ path: 'c' }], other: 'a' };
  const out = absoluteArgs(input, [
    access('a', '/ws/a', 'folder-rules:args.path'),
    access('b', '/ws/b', 'folder-rules:args.paths[0]'),
    access('c', '/ws/c', 'x:args.ops[0].path'),
    access('zzz', '/ws/zzz', 'x:args.other'), // value differs from raw: untouched
    access('a', '/ws/a', 'shell:redirect'),
  ]);
  expect(out).toEqual({ path: '/ws/a', paths: ['/ws/b', '/abs'], ops: [{ path: '/ws/c' }], other: 'a' });
  expect(input.path).toBe('a'); // the model's input object is not mutated
});
