import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard, ToolgateError } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shell } from '../src/index.js';
import { denyUnder } from './denyUnder.js';

let root: string;
let ws: string;
let secret: string;
let ctx: CallContext;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-shell-')));
  ws = join(root, 'ws');
  secret = join(root, 'secret');
  mkdirSync(join(ws, 'sub'), { recursive: true });
  mkdirSync(secret);
  writeFileSync(join(secret, 'key'), 'k');
  writeFileSync(join(ws, 'notes.txt'), 'n');
  // A link inside the workspace that leads out of it.
  symlinkSync(secret, join(ws, 'escape'));
  symlinkSync(join(secret, 'key'), join(ws, 'keylink'));
  ctx = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home: join(root, 'home'), env: {} };
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const guard = () => createGuard({ plugins: [shell(), denyUnder([secret])] });
const check = (command: string, args: Record<string, unknown> = {}) =>
  guard().check({ tool: 'shell_exec', args: { command, ...args } }, ctx, { resolvePrompts: false });

describe('shell plugin in a guard', () => {
  it('allows a command that stays in the workspace', async () => {
    const d = await check('cat notes.txt > sub/copy.txt');
    expect(d.action).toBe('allow');
    expect(d.accesses.map((a) => a.origin)).toEqual(['shell:redirect', 'shell:cat:argv']);
  });

  it('follows symlinks out of the workspace (real files, real links)', async () => {
    expect((await check('cat escape/key')).action).toBe('deny');
    expect((await check('cd escape && cat key')).action).toBe('deny');
    expect((await check('echo x > keylink')).action).toBe('deny');
  });

  it('judges the link itself, not its target, for rm and ln -sf', async () => {
    const d = await check('rm keylink');
    expect(d.action).toBe('allow');
    expect(d.accesses[0]?.realPath).toBe(join(ws, 'keylink'));
    expect((await check(`ln -sf ${join(secret, 'key')} newlink`)).action).toBe('deny');
  });

  it('denies what it cannot analyse (fail closed)', async () => {
    const d = await check('cat $(cat list.txt)');
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.code).toBe('PATH_UNCERTAIN');
    expect((await check('if then fi (')).action).toBe('deny');
  });

  it('claims the call and treats a missing command as uncertain', async () => {
    let claimed = false;
    const g = createGuard({
      plugins: [
        shell(),
        {
          name: 'claim-probe',
          policy: true,
          apply(hooks) {
            hooks.beforeToolCall.tap({ stage: 0 }, (_c, state) => {
              claimed = state.claimed('shell');
              return undefined;
            });
          },
        },
      ],
    });
    await g.check({ tool: 'shell_exec', args: { command: 'ls' } }, ctx, { resolvePrompts: false });
    expect(claimed).toBe(true);
    const d = await g.check({ tool: 'shell_exec', args: { cmd: 'ls' } }, ctx, { resolvePrompts: false });
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.access?.reason).toMatch(/command argument is missing/);
  });

  it('starts from the tool cwd argument, itself a read', async () => {
    const d = await check('cat key', { cwd: secret });
    expect(d.action).toBe('deny');
    expect(d.accesses[0]?.origin).toBe('shell:args.cwd');
  });

  it('denies metacharacters in strict mode, analyses them otherwise', async () => {
    const strict = createGuard({ plugins: [shell({ metacharacters: 'deny' }), denyUnder([secret])] });
    const d = await strict.check({ tool: 'terminal', args: { command: 'echo $(date) > out.txt' } }, ctx, {
      resolvePrompts: false,
    });
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.code).toBe('SHELL_METACHARACTER');
    expect((await check('echo $(date) > out.txt')).action).toBe('allow');
  });

  it('prompts or denies unknown commands when asked to', async () => {
    const p = createGuard({ plugins: [shell({ unknownCommands: 'prompt' }), denyUnder([secret])] });
    const d = await p.check({ tool: 'shell_exec', args: { command: 'frobnicate notes.txt' } }, ctx, {
      resolvePrompts: false,
    });
    expect(d.action).toBe('prompt');
    const q = createGuard({ plugins: [shell({ unknownCommands: 'deny' }), denyUnder([secret])] });
    const e = await q.check({ tool: 'shell_exec', args: { command: 'frobnicate' } }, ctx, {
      resolvePrompts: false,
    });
    expect(e.action).toBe('deny');
    expect(e.reasons[0]?.code).toBe('SHELL_UNCERTAIN');
  });

  it('rejects bad options at construction, naming field and value', () => {
    expect(() => shell({ unknownCommands: 'maybe' as 'write' })).toThrow(ToolgateError);
    expect(() => shell({ unknownCommands: 'maybe' as 'write' })).toThrow(/unknownCommands.*maybe/);
    expect(() => shell({ tools: { x: { commandArg: '' } } })).toThrow(/tools\.x/);
    expect(() => shell({ maxDepth: -1 })).toThrow(/maxDepth/);
    expect(() => shell({ bogus: 1 } as never)).toThrow(/bogus/);
  });

  it('ignores tools that are not shell tools', async () => {
    const d = await guard().check({ tool: 'read_file', args: { path: 'x' } }, ctx, { resolvePrompts: false });
    expect(d.accesses).toEqual([]);
  });
});
