import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard } from '@toolgate/core';
import { folderRules } from '@toolgate/folder-rules';
import { shell } from '@toolgate/shell';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The cross-package attack suite: the default stack (shell + folder-rules, as the CLI composes it) with a
// policy that allows the workspace and /tmp-like scratch only, against real files and symlinks.
const lines = readFileSync(new URL('./fixtures/attacks.tsv', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '' && !l.startsWith('#'));

let root: string;
let ws: string;
let home: string;
let out: string;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-attacks-')));
  ws = join(root, 'ws');
  home = join(root, 'home');
  out = join(root, 'outside');
  mkdirSync(join(ws, 'src', 'inner'), { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(join(out, 'deep'), { recursive: true });
  writeFileSync(join(ws, 'src', 'app.ts'), 'export {};\n');
  writeFileSync(join(ws, 'src', 'inner', 'app.ts'), 'export {};\n');
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'KEY');
  writeFileSync(join(out, 'secret'), 'SECRET');
  symlinkSync('/etc', join(ws, 'etc-link'));
  symlinkSync(out, join(ws, 'out-link'));
  symlinkSync(join(out, 'deep'), join(ws, 'deep-link'));
  symlinkSync('chain-b', join(ws, 'chain-a'));
  symlinkSync(out, join(ws, 'chain-b'));
  symlinkSync(join(out, 'created-by-write'), join(ws, 'dangling-link'));
  symlinkSync('loop-b', join(ws, 'loop-a'));
  symlinkSync('loop-a', join(ws, 'loop-b'));
  symlinkSync(join(ws, 'src', 'inner'), join(ws, 'inner-link'));
  // A file link among ordinary names: a program handed the path by find or xargs opens its target.
  mkdirSync(join(ws, 'docs'));
  writeFileSync(join(ws, 'docs', 'readme.md'), '# docs\n');
  symlinkSync(join(home, '.ssh', 'id_rsa'), join(ws, 'docs', 'notes.md'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function guardAndCtx(): { guard: ReturnType<typeof createGuard>; ctx: CallContext } {
  const guard = createGuard({
    plugins: [
      shell(),
      folderRules({
        rules: [
          { pattern: '<workspace>/**', access: 'write' },
          { pattern: '~/.ssh/**', access: 'deny' },
          { pattern: '/etc/**', access: 'deny' },
        ],
        default: 'deny',
      }),
    ],
  });
  return {
    guard,
    ctx: { sessionId: 'attack', agentId: 'attacker', cwd: ws, workspace: ws, home, env: { HOME: home } },
  };
}

describe('attacks against the default stack (fixtures/attacks.tsv)', () => {
  it('has a corpus worth the name', () => {
    expect(lines.length).toBeGreaterThan(70);
  });

  for (const line of lines) {
    const [expected, tool, json] = line.split('\t');
    it(`${expected} ${tool} ${json}`, async () => {
      const { guard, ctx } = guardAndCtx();
      const text = json!.replaceAll('@WS@', ws).replaceAll('@HOME@', home).replaceAll('@OUT@', out);
      const args = JSON.parse(text) as Record<string, unknown>;
      const d = await guard.check({ tool: tool!, args }, ctx, { resolvePrompts: false });
      const why = JSON.stringify({
        reasons: d.reasons.map((r) => `${r.code}: ${r.reason}`),
        accesses: d.accesses.map((a) => `${a.op} ${a.realPath ?? a.raw}`),
      });
      expect(d.action, why).toBe(expected);
      if (expected === 'deny') expect(d.envelope?.code, why).toBeTruthy();
    });
  }
});
