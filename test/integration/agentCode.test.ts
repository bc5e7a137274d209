import { type Access, createGuard, type GuardPlugin } from '@toolgate/core';
import { folderRules } from '@toolgate/folder-rules';
import { describe, expect, it } from 'vitest';

// Invariant 6, program identity: an access marked `runs` is a marker (the file a program's code comes from),
// judged only by whether the agent may write that file — never as a read the policy must allow.
const ctx = { sessionId: 's', agentId: 'a', cwd: '/ws', workspace: '/ws', home: '/home/u', env: {} };

function runs(path: string, what = '`cmd` runs'): Access {
  return {
    op: 'read',
    scope: 'path',
    raw: path,
    path,
    realPath: path,
    origin: 'test:exec',
    certain: true,
    runs: what,
  };
}

// Program files by name: a call names them in `args.programs` (names, not paths, so that the policy's own
// extractor sees no path argument).
const FILES: Record<string, string> = {
  vitest: '/ws/node_modules/.bin/vitest',
  aout: '/ws/a.out',
  cat: '/usr/bin/cat',
  ls: '/bin/ls',
  optx: '/opt/tool/bin/x',
  localcat: '/home/u/.local/bin/cat',
  tools: '/opt/tools/bin/x',
  other: '/opt/other/bin/x',
};

/** An extractor that reports the program files a call names in `args.programs`. */
const programs: GuardPlugin = {
  name: 'programs',
  apply(hooks) {
    hooks.collectAccesses.tap('programs', (accesses, call) => [
      ...accesses,
      ...((call.args.programs as string[] | undefined) ?? []).map((p) => runs(FILES[p]!)),
    ]);
  },
};

const policy = folderRules({
  rules: [
    { pattern: '<workspace>/**', access: 'write' },
    { pattern: '~/.ssh/**', access: 'deny' },
    { pattern: '/opt/**', access: 'read' },
  ],
  default: 'deny',
});
const call = (...p: string[]) => ({ tool: 'get_weather', args: { programs: p } });

describe('programs the agent can write (markAgentCode)', () => {
  it('a program in a writable place makes the call uncertain, naming the file', async () => {
    const guard = createGuard({ plugins: [programs, policy] });
    const d = await guard.check(call('vitest'), ctx);
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.code).toBe('PATH_UNCERTAIN');
    expect(d.reasons[0]?.reason).toMatch(/\/ws\/node_modules\/\.bin\/vitest, a file the agent can write/);
    // uncertain: prompt asks a human instead
    const asking = createGuard({ plugins: [programs, policy], uncertain: 'prompt' });
    expect((await asking.check(call('aout'), ctx, { resolvePrompts: false })).action).toBe('prompt');
  });

  it('twin: a program the policy does not let the agent write is not judged as a read at all', async () => {
    const guard = createGuard({ plugins: [programs, policy] });
    // /usr/bin is not even readable under this policy: the marker is no access, so no false deny.
    const d = await guard.check(call('cat', 'optx'), ctx);
    expect(d.action).toBe('allow');
    expect(d.accesses).toEqual([]);
  });

  it('a link the agent can write on the way to a system program makes it uncertain too', async () => {
    const linked: GuardPlugin = {
      name: 'linked',
      apply(hooks) {
        hooks.collectAccesses.tap('linked', (accesses) => [
          ...accesses,
          {
            ...runs('/usr/bin/python3.11', '`./py` runs'),
            raw: './py',
            hops: [{ link: '/ws/py', target: '/usr/bin/python3' }],
          },
        ]);
      },
    };
    const d = await createGuard({ plugins: [linked, policy] }).check(call(), ctx);
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.reason).toMatch(/through \/ws\/py, a link the agent can write/);
  });

  it('a policy that throws in agentWritable proves nothing (fail closed)', async () => {
    const throwing: GuardPlugin = {
      name: 'throwing',
      policy: true,
      agentWritable() {
        throw new Error('boom');
      },
      apply() {},
    };
    const guard = createGuard({ plugins: [programs, throwing, policy] });
    expect((await guard.check(call('cat'), ctx)).action).toBe('deny');
  });

  it('without any policy answering, only system program directories count as not writable', async () => {
    const plain: GuardPlugin = { name: 'plain', policy: true, apply() {} };
    const guard = createGuard({ plugins: [programs, plain] });
    expect((await guard.check(call('cat', 'ls'), ctx)).action).toBe('allow');
    expect((await guard.check(call('localcat'), ctx)).action).toBe('deny');
  });

  it('a prompt-tier program file counts as writable (the agent may write it once a human approves)', async () => {
    const p = folderRules({
      rules: [
        { pattern: '/opt/**', access: 'read' },
        { pattern: '/opt/tools/**', access: 'prompt' },
      ],
      default: 'deny',
    });
    const guard = createGuard({ plugins: [programs, p] });
    expect((await guard.check(call('tools'), ctx)).action).toBe('deny');
    expect((await guard.check(call('other'), ctx)).action).toBe('allow');
  });
});

describe('the kernel has a say too', () => {
  it('a permissive policy run by an ordinary user does not make system programs the agent’s code; as root it does', async () => {
    const { spawnSync } = await import('node:child_process');
    const script = new URL('./fixtures/permissiveAsUser.mts', import.meta.url).pathname;
    const run = (asUser: boolean) =>
      spawnSync(process.execPath, ['--conditions=source', '--import', 'tsx', script], {
        ...(asUser ? { uid: 65534, gid: 65534 } : {}),
        env: { PATH: process.env.PATH, HOME: '/tmp', TSX_DISABLE_CACHE: '1' },
        encoding: 'utf8',
      });
    const user = run(true);
    expect(user.status, user.stderr).toBe(0);
    expect(JSON.parse(user.stdout)).toEqual({ 'ls -la': 'allow', 'cat /etc/hostname': 'allow' });
    // root may replace /usr/bin/ls, and the policy lets the agent write there: that is the agent's code
    expect(process.getuid?.()).toBe(0);
    const root = run(false);
    expect(root.status, root.stderr).toBe(0);
    expect(JSON.parse(root.stdout)).toEqual({ 'ls -la': 'deny', 'cat /etc/hostname': 'deny' });
  }, 60_000);
});
