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

  it('globs and recursive operations through a link are judged where the link leads', async () => {
    expect((await check('cat escape/*')).action).toBe('deny');
    // find does not follow a symlink given as a start point (it deletes the link); with a slash it does.
    expect((await check('find escape -delete')).action).toBe('allow');
    expect((await check('find escape/ -delete')).action).toBe('deny');
    // grep -r does not follow links met on the way down; grep -R and find -L do: their subtree access says so,
    // for the policy's walk to follow (this test's deny-under policy does not walk subtrees).
    expect((await check('grep -r key .')).action).toBe('allow');
    const r = await check('grep -R key .');
    expect(r.accesses).toMatchObject([{ op: 'read', scope: 'subtree', certain: true, followLinks: true }]);
    const l = await check('find -L . -name key');
    expect(l.accesses).toMatchObject([{ op: 'list', scope: 'subtree', certain: true, followLinks: true }]);
    expect((await check('cat sub/*.txt')).action).toBe('allow');
  });

  it('cd is logical: cd through a link and .. returns beside the link, as bash does', async () => {
    // The kernel's escape/.. is the secret's parent; bash's cd removes the component as written.
    const d = await check('cd escape/.. && cat notes.txt');
    expect(d.action).toBe('allow');
    expect(d.accesses.some((a) => a.realPath === join(ws, 'notes.txt'))).toBe(true);
  });

  it('an unknown command writes operands that name existing files, not plain words', async () => {
    const g = createGuard({ plugins: [shell(), denyUnder([join(ws, 'notes.txt')])] });
    const c = (command: string) =>
      g.check({ tool: 'shell_exec', args: { command } }, ctx, { resolvePrompts: false });
    const hit = await c('frob notes.txt');
    expect(hit.action).toBe('deny');
    expect(hit.accesses[0]).toMatchObject({ op: 'write', origin: 'shell:frob:argv' });
    const miss = await c('frob hello');
    expect(miss.accesses).toEqual([]);
  });

  it('a link the same line creates is followed to its target', async () => {
    expect((await check(`ln -s ${secret} mine && cat mine/key`)).action).toBe('deny');
    expect((await check('ln -s sub mine && cat mine/x')).action).toBe('allow');
  });

  it('uncertain accesses are prompted when the guard says so, never allowed', async () => {
    const g = createGuard({ plugins: [shell(), denyUnder([secret])], uncertain: 'prompt' });
    const d = await g.check({ tool: 'shell_exec', args: { command: 'cat $(cat list)' } }, ctx, {
      resolvePrompts: false,
    });
    expect(d.action).toBe('prompt');
  });

  it('nested code past maxDepth is uncertain', async () => {
    const g = createGuard({ plugins: [shell({ maxDepth: 1 }), denyUnder([secret])] });
    const c = (command: string) =>
      g.check({ tool: 'shell_exec', args: { command } }, ctx, { resolvePrompts: false });
    expect((await c(`bash -c 'cat notes.txt'`)).action).toBe('allow');
    expect((await c(`bash -c "bash -c 'cat notes.txt'"`)).action).toBe('deny');
  });

  it('an unusable cwd argument makes relative paths uncertain', async () => {
    const d = await check('cat notes.txt', { cwd: 42 });
    expect(d.action).toBe('deny');
    expect(d.accesses.every((a) => !a.certain)).toBe(true);
    const abs = await check('cat /etc/hostname', { working_directory: 'sub' });
    expect(abs.accesses[0]).toMatchObject({ origin: 'shell:args.working_directory', path: join(ws, 'sub') });
  });

  it('maps other tool names and arguments', async () => {
    const g = createGuard({
      plugins: [
        shell({ tools: { exec: { commandArg: 'cmd', cwdArg: 'dir' }, bash: false }, notShell: ['bash'] }),
        denyUnder([secret]),
      ],
    });
    const d = await g.check({ tool: 'exec', args: { cmd: 'cat key', dir: secret } }, ctx, {
      resolvePrompts: false,
    });
    expect(d.action).toBe('deny');
    const off = await g.check({ tool: 'bash', args: { command: 'cat escape/key' } }, ctx, {
      resolvePrompts: false,
    });
    expect(off.accesses).toEqual([]);
  });

  it('still analyses a removed tool that carries a command, unless it is declared notShell', async () => {
    const g = createGuard({ plugins: [shell({ tools: { bash: false } }), denyUnder([secret])] });
    const d = await g.check({ tool: 'bash', args: { command: 'cat escape/key' } }, ctx, {
      resolvePrompts: false,
    });
    expect(d.action).toBe('deny');
  });

  it('with no policy plugin, a shell call that touches paths gets the unguarded answer (deny)', async () => {
    const g = createGuard({ plugins: [shell()] });
    const d = await g.check({ tool: 'shell_exec', args: { command: 'cat notes.txt' } }, ctx, {
      resolvePrompts: false,
    });
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.code).toBe('NO_POLICY');
  });
});
