import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Access,
  type CallContext,
  createAccess,
  createGuard,
  type GuardPlugin,
  Stage,
  type SubtreeFilter,
} from '@toolgate/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { evaluate, explain, folderRules, type InlineRule, type SubtreeWalkOptions } from '../src/index.js';

// Real trees in a temp dir under the policy: what exists beneath a subtree access decides it.
let root: string;
let ws: string;
let home: string;
let ctx: CallContext;

const POLICY: InlineRule[] = [
  { pattern: '<workspace>/**', access: 'write' },
  { pattern: '/tmp/**', access: 'write' },
  { pattern: '/usr/**', access: 'read' },
  { pattern: '/opt/**', access: 'read' },
  { pattern: '/etc/**', access: 'read' },
  { pattern: '/etc/shadow', access: 'deny' },
  { pattern: '~/.ssh/**', access: 'deny' },
  { pattern: '**/.env', access: 'deny' },
];

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-fr-walk-')));
  ws = join(root, 'ws');
  home = join(root, 'home');
  mkdirSync(join(ws, 'src', 'lib'), { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(ws, 'README.md'), 'r');
  writeFileSync(join(ws, 'src', 'index.ts'), '');
  writeFileSync(join(ws, 'src', 'lib', 'a.ts'), '');
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'k');
  ctx = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home, env: {} };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Emits the accesses a test gives, as the shell plugin would (`shell:<program>:argv`). */
function emitter(make: () => Access[]): GuardPlugin {
  return {
    name: 'test-shell',
    apply(hooks) {
      hooks.collectAccesses.tap({ stage: Stage.EXTRACT }, (accesses, _call, state) => {
        state.claim('shell');
        return [...accesses, ...make()];
      });
    },
  };
}

interface TreeOptions {
  op?: Access['op'];
  followLinks?: boolean;
  filter?: SubtreeFilter;
  unknownContents?: string;
  walk?: SubtreeWalkOptions | false;
  rules?: InlineRule[];
  program?: string;
}

function tree(raw: string, o: TreeOptions = {}): Access {
  const a = createAccess(raw, o.op ?? 'read', ctx, {
    origin: `shell:${o.program ?? 'grep'}:argv`,
    scope: 'subtree',
  });
  if (o.followLinks) a.followLinks = true;
  if (o.filter) a.filter = o.filter;
  if (o.unknownContents) a.unknownContents = o.unknownContents;
  return a;
}

async function check(raw: string, o: TreeOptions = {}) {
  const guard = createGuard({
    plugins: [
      emitter(() => [tree(raw, o)]),
      folderRules({
        rules: o.rules ?? POLICY,
        ...(o.walk !== undefined ? { subtreeWalk: o.walk } : {}),
      }),
    ],
  });
  return guard.check({ tool: 'Bash', args: { command: `${o.program ?? 'grep'} -r x ${raw}` } }, ctx);
}

describe('existence-aware subtree accesses (real trees)', () => {
  it('twins: without a .env the read subtree is allowed; with one it is denied, naming the file', async () => {
    expect((await check('.')).action).toBe('allow');
    writeFileSync(join(ws, 'src', '.env'), 'KEY=1');
    const d = await check('.');
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.code).toBe('PATH_DENIED');
    expect(d.reasons[0]?.reason).toBe(
      `grep would read ${join(ws, 'src', '.env')}: path matches deny rule **/.env`,
    );
    expect(d.envelope?.path).toBe(join(ws, 'src', '.env'));
    expect(d.envelope?.operation).toBe('read');
  });

  it('tar of the workspace into /tmp: allowed without .env, denied with one (write twin: rm -r)', async () => {
    expect((await check('.', { program: 'tar' })).action).toBe('allow');
    expect((await check('src', { op: 'write', program: 'rm' })).action).toBe('allow');
    writeFileSync(join(ws, 'src', 'lib', '.env'), '');
    const t = await check('.', { program: 'tar' });
    expect(t.action).toBe('deny');
    expect(t.reasons[0]?.reason).toMatch(/^tar would read .*\/src\/lib\/\.env:/);
    const r = await check('src', { op: 'write', program: 'rm' });
    expect(r.action).toBe('deny');
    expect(r.reasons[0]?.reason).toMatch(/^rm would write .*\/src\/lib\/\.env:/);
    expect(r.envelope?.operation).toBe('write');
  });

  it('deny rules match case-insensitively beneath the root too (.ENV)', async () => {
    writeFileSync(join(ws, '.ENV'), '');
    expect((await check('.')).action).toBe('deny');
  });

  it('a file root is its own subtree: its own verdict decides', async () => {
    expect((await check('README.md')).action).toBe('allow');
    writeFileSync(join(ws, '.env'), '');
    expect((await check('.env')).action).toBe('deny');
  });

  it('a root that does not exist has nothing beneath it: its own verdict', async () => {
    expect((await check('dist', { op: 'write', program: 'rm' })).action).toBe('allow');
    // …but a root whose own verdict denies is denied without looking.
    expect((await check('/var/tg-nothing-here', { op: 'write', program: 'rm' })).action).toBe('deny');
  });

  it('a root that cannot be inspected (a file used as a directory) takes the worst case', async () => {
    const d = await check('README.md/x');
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.code).toBe('SUBTREE_UNBOUNDED');
    expect(d.reasons[0]?.reason).toMatch(/cannot inspect .*ENOTDIR/);
  });

  it('/etc is read-only but /etc/shadow exists beneath it: grep -r /etc names it', async () => {
    const d = await check('/etc');
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.reason).toBe('grep would read /etc/shadow: path matches deny rule /etc/shadow');
    expect(d.envelope?.path).toBe('/etc/shadow');
  });

  it('a write subtree under a read-only root is denied by the root itself', async () => {
    const d = await check('/usr/share', { op: 'write', program: 'rm' });
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.code).toBe('PATH_DENIED');
  });
});

describe('list vs read', () => {
  it('a subtree list never opens files: **/.env does not deny ls -R of a workspace holding one', async () => {
    writeFileSync(join(ws, '.env'), '');
    expect((await check('.', { op: 'list', program: 'ls' })).action).toBe('allow');
    expect((await check('.', { op: 'read', program: 'grep' })).action).toBe('deny');
  });

  it('ls -R ~ is denied because ~/.ssh is a directory beneath it (and names it)', async () => {
    const d = await check('~', {
      op: 'list',
      program: 'ls',
      rules: [...POLICY, { pattern: '~/**', access: 'read' }],
    });
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.reason).toBe(
      `ls would list ${join(home, '.ssh')}: path matches deny rule ~/.ssh/**`,
    );
    expect(d.envelope?.operation).toBe('list');
    expect(d.envelope?.path).toBe(join(home, '.ssh'));
  });

  it('a directory named .env is listed, and so denied, by a list', async () => {
    mkdirSync(join(ws, 'src', '.env'));
    expect((await check('.', { op: 'list', program: 'ls' })).action).toBe('deny');
  });
});

describe('symlinks beneath the root', () => {
  it('not followed: a link to a denied file is judged as the link itself (allowed)', async () => {
    symlinkSync(join(home, '.ssh', 'id_rsa'), join(ws, 'src', 'key'));
    symlinkSync(join(home, '.ssh'), join(ws, 'sshdir'));
    expect((await check('.')).action).toBe('allow');
  });

  it('followed (grep -R, tar -h): the target is judged where it is, outside the root too', async () => {
    symlinkSync(join(home, '.ssh', 'id_rsa'), join(ws, 'src', 'key'));
    const d = await check('.', { followLinks: true });
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.reason).toBe(
      `grep would read ${join(home, '.ssh', 'id_rsa')}: path matches deny rule ~/.ssh/**`,
    );
  });

  it('followed into a directory outside the root: files in it are judged', async () => {
    const outside = join(root, 'outside');
    mkdirSync(join(outside, 'deep'), { recursive: true });
    writeFileSync(join(outside, 'deep', '.env'), '');
    symlinkSync(outside, join(ws, 'vendor'));
    expect((await check('.')).action).toBe('allow');
    const d = await check('.', { followLinks: true });
    expect(d.action).toBe('deny');
    expect(d.envelope?.path).toBe(join(outside, 'deep', '.env'));
  });

  it('followed to a directory the policy denies by default: denied (outside every allow rule)', async () => {
    // Without the /tmp rule: the temp dir outside the workspace is outside every allow rule.
    const rules = POLICY.filter((r) => r.pattern !== '/tmp/**');
    const outside = mkdtempSync(join(home, 'o-'));
    writeFileSync(join(outside, 'f'), '');
    symlinkSync(outside, join(ws, 'o'));
    expect((await check('.', { rules })).action).toBe('allow');
    const d = await check('.', { followLinks: true, rules });
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.reason).toMatch(/^grep would read .*\/home\/o-\w+: path outside allowed scope/);
  });

  it('followed links are found even where no rule beneath makes the walk descend (pruning does not hide them)', async () => {
    const rules: InlineRule[] = [{ pattern: '<workspace>/**', access: 'write' }];
    symlinkSync(join(home, '.ssh'), join(ws, 'src', 'lib', 'keys'));
    expect((await check('.', { rules })).action).toBe('allow');
    const d = await check('.', { rules, followLinks: true });
    expect(d.action).toBe('deny');
    expect(d.envelope?.path).toBe(join(home, '.ssh'));
  });

  it('a link named .env is a read of the link when not followed (deny rule on its name)', async () => {
    symlinkSync(join(ws, 'README.md'), join(ws, '.env'));
    expect((await check('.')).action).toBe('deny');
  });

  it('loops terminate: a link back to the root and a self-loop', async () => {
    symlinkSync(ws, join(ws, 'src', 'up'));
    symlinkSync(join(ws, 'self'), join(ws, 'self'));
    expect((await check('.', { followLinks: true })).action).toBe('allow');
    writeFileSync(join(ws, 'src', 'lib', '.env'), '');
    expect((await check('.', { followLinks: true })).action).toBe('deny');
  });

  it('a dangling link is judged as its name', async () => {
    symlinkSync(join(root, 'gone'), join(ws, 'dangling'));
    expect((await check('.', { followLinks: true })).action).toBe('allow');
  });
});

describe('bounds, unknown contents and filters', () => {
  it('over maxEntries: the worst case with SUBTREE_UNBOUNDED, saying which bound', async () => {
    for (let i = 0; i < 30; i++) writeFileSync(join(ws, `f${i}`), '');
    const d = await check('.', { walk: { maxEntries: 20 } });
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.code).toBe('SUBTREE_UNBOUNDED');
    expect(d.reasons[0]?.reason).toMatch(/more than 20 entries beneath/);
    expect((await check('.', { walk: { maxEntries: 100 } })).action).toBe('allow');
  });

  it('over maxMs: the worst case, saying so', async () => {
    const d = await check('.', { walk: { maxMs: 0 } });
    expect(d.reasons[0]?.code).toBe('SUBTREE_UNBOUNDED');
    expect(d.reasons[0]?.reason).toMatch(/took more than 0 ms/);
  });

  it('a bound never hides a deny found before it', async () => {
    writeFileSync(join(ws, '.env'), '');
    const d = await check('.', { walk: { maxEntries: 1_000 } });
    expect(d.reasons[0]?.code).toBe('PATH_DENIED');
  });

  it('unknownContents (the line writes into the subtree first): the worst case', async () => {
    const d = await check('.', { unknownContents: 'cp writes /ws in the same command line' });
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.code).toBe('SUBTREE_UNBOUNDED');
    expect(d.reasons[0]?.reason).toMatch(/cp writes \/ws in the same command line/);
  });

  it('subtreeWalk: false is the worst case without looking (PATH_DENIED, as before the walk)', async () => {
    const d = await check('.', { walk: false });
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.code).toBe('PATH_DENIED');
  });

  it('the worst case is not taken where nothing stricter could match (no walk needed)', async () => {
    const d = await check('.', {
      walk: { maxEntries: 0 },
      rules: [{ pattern: '<workspace>/**', access: 'write' }],
    });
    expect(d.action).toBe('allow');
  });

  it('filter: skipped entries are not judged, and skipped directories not entered', async () => {
    writeFileSync(join(ws, '.env'), '');
    mkdirSync(join(ws, 'ignored'));
    writeFileSync(join(ws, 'ignored', '.env'), '');
    const seen: string[] = [];
    const gitignore: SubtreeFilter = {
      name: 'gitignore of ws',
      skips(rel, isDir) {
        seen.push(`${rel}${isDir ? '/' : ''}`);
        return rel === '.env' || rel === 'ignored';
      },
    };
    expect((await check('.', { filter: gitignore, program: 'git' })).action).toBe('allow');
    expect(seen).toContain('ignored/');
    expect(seen).not.toContain('ignored/.env');
    const partial: SubtreeFilter = { name: 'only .env at the top', skips: (rel) => rel === '.env' };
    const d = await check('.', { filter: partial, program: 'git' });
    expect(d.envelope?.path).toBe(join(ws, 'ignored', '.env'));
  });

  it('prunes: a deny rule rooted elsewhere does not make the walk enter anything', async () => {
    const rules: InlineRule[] = [
      { pattern: '<workspace>/**', access: 'write' },
      { pattern: '<workspace>/secrets/**', access: 'deny' },
    ];
    const seen: string[] = [];
    const spy: SubtreeFilter = {
      name: 'spy',
      skips(rel) {
        seen.push(rel);
        return false;
      },
    };
    expect((await check('.', { rules, filter: spy })).action).toBe('allow');
    // The top level is read (secrets could be there); src is not entered.
    expect(seen).toContain('src');
    expect(seen).not.toContain('src/lib');
    mkdirSync(join(ws, 'secrets'));
    expect((await check('.', { rules })).action).toBe('deny');
  });

  it('a default stricter than the root, not covered by an allow rule: every entry is judged', async () => {
    const rules: InlineRule[] = [{ pattern: '<workspace>/src', access: 'read' }];
    const d = await check('src', { rules });
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.reason).toMatch(
      /^grep would read .*\/src\/(lib|index\.ts): path outside allowed scope/,
    );
  });
});

describe('prompt-tier entries beneath', () => {
  it('a prompt found beneath names the entry but stays about the whole subtree (a grant must cover it all)', async () => {
    const rules: InlineRule[] = [...POLICY, { pattern: '<workspace>/secrets/**', access: 'prompt' }];
    mkdirSync(join(ws, 'secrets'));
    writeFileSync(join(ws, 'secrets', 'a'), '');
    const guard = createGuard({
      plugins: [emitter(() => [tree('.')]), folderRules({ rules })],
    });
    const d = await guard.check({ tool: 'Bash', args: { command: 'grep -r x .' } }, ctx, {
      resolvePrompts: false,
    });
    expect(d.action).toBe('prompt');
    const finding = d.reasons[0];
    expect(finding?.code).toBe('PATH_PROMPT');
    expect(finding?.reason).toMatch(/^grep would read .*\/secrets/);
    expect(finding?.access).toMatchObject({ scope: 'subtree', realPath: ws });
    // A .env beside it turns the prompt into a deny, which names the file.
    writeFileSync(join(ws, '.env'), '');
    const d2 = await guard.check({ tool: 'Bash', args: { command: 'grep -r x .' } }, ctx);
    expect(d2.action).toBe('deny');
    expect(d2.envelope?.path).toBe(join(ws, '.env'));
  });
});

describe('explain and evaluate', () => {
  it('evaluate reports the cause and the entries walked', () => {
    writeFileSync(join(ws, 'src', '.env'), '');
    const policy = folderRules({ rules: POLICY }).compiled;
    const ev = evaluate(policy, tree('.'), ctx);
    expect(ev.decision).toBe('deny');
    expect(ev.cause?.path).toBe(join(ws, 'src', '.env'));
    expect(ev.walked).toBeGreaterThan(0);
  });

  it('explain shows the file that decided a subtree deny', async () => {
    writeFileSync(join(ws, 'src', '.env'), '');
    const policy = folderRules({ rules: POLICY }).compiled;
    const r = await explain(policy, { tool: 'Grep', args: { path: ws, pattern: 'x' } }, ctx);
    expect(r.decision).toBe('deny');
    expect(r.accesses[0]?.cause).toBe(join(ws, 'src', '.env'));
    expect(r.accesses[0]?.why).toMatch(/\.env exists beneath/);
  });

  it('invalid subtreeWalk options throw at construction', () => {
    expect(() => folderRules({ rules: POLICY, subtreeWalk: { maxEntries: -1 } })).toThrow(
      /subtreeWalk.maxEntries/,
    );
    expect(() => folderRules({ rules: POLICY, subtreeWalk: { depth: 1 } as never })).toThrow(
      /subtreeWalk.depth/,
    );
    expect(() => folderRules({ rules: POLICY, subtreeWalk: true as never })).toThrow(/subtreeWalk/);
  });
});
