import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadPolicy } from '@toolgate/folder-rules';
import { afterAll, describe, expect, it } from 'vitest';
import { caseVariants } from '../src/caseVariants.js';
import { compileMounts } from '../src/index.js';

// The plan itself (no bubblewrap): which mounts the guard paths, the rename pins and the case variants add.
// The escape suite (escapes.test.ts) runs the attacks against them.
const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function tree(files: Record<string, string>, links: Record<string, string> = {}) {
  const root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-guard-mounts-')));
  roots.push(root);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    if (rel.endsWith('/')) mkdirSync(join(root, rel), { recursive: true });
    else writeFileSync(join(root, rel), text);
  }
  for (const [rel, target] of Object.entries(links)) symlinkSync(join(root, target), join(root, rel));
  const ws = join(root, 'ws');
  const home = join(root, 'home');
  const policyFile = join(ws, 'toolgate.yaml');
  writeFileSync(
    policyFile,
    [
      'default: read',
      'rules:',
      '  - { pattern: "<workspace>/**", access: write }',
      '  - { pattern: "~/**", access: write }',
      '  - { pattern: "~/.ssh/**", access: deny }',
      '  - { pattern: "**/.env", access: deny }',
      '',
    ].join('\n'),
  );
  const plan = compileMounts(loadPolicy({ file: policyFile }), {
    cwd: ws,
    workspace: ws,
    home,
    env: { HOME: home },
  });
  const ops = plan.ops.map((o) => `${o.kind} ${o.path.slice(root.length + 1)}`);
  return { root, ws, home, ops };
}

describe('the plan of the guard paths, pins and case variants', () => {
  it('seals .claude (settings read-only, commands bound back), hides the spools, pins what holds a mask', () => {
    const { ops } = tree({
      'ws/.claude/settings.json': '{}',
      'ws/.claude/commands/x.md': '',
      'ws/deep/er/.env': 'x',
      'home/.cache/toolgate/policies/p.json': '{}',
      'home/.cache/toolgate/hookd-1/req': 'SECRET',
      'home/.ssh/id_rsa': 'k',
    });
    expect(ops).toEqual(
      expect.arrayContaining([
        'ro ws/.claude',
        'rw ws/.claude/commands',
        'ro ws/toolgate.yaml',
        'rw ws/deep',
        'rw ws/deep/er',
        'mask-file ws/deep/er/.env',
        'rw home/.cache',
        'mask-dir home/.cache/toolgate',
        'ro home/.cache/toolgate/policies',
        'mask-dir home/.ssh',
      ]),
    );
    expect(ops.some((o) => o.includes('hookd-'))).toBe(false);
    // A directory that holds nothing protected is no mount point: it renames as before.
    expect(ops.some((o) => o.endsWith(' ws/.claude/commands/x.md'))).toBe(false);
  });

  it('makes a missing project .claude of a user with ~/.claude (never through a dangling link)', () => {
    expect(tree({ 'ws/README': '', 'home/.claude/settings.json': '{}' }).ops).toContain(
      'mask-dir ws/.claude',
    );
    expect(tree({ 'ws/README': '' }).ops.some((o) => o.includes('ws/.claude'))).toBe(false);
    const dangling = tree(
      { 'ws/README': '', 'home/.claude/settings.json': '{}' },
      { 'ws/.claude': 'nowhere' },
    );
    expect(dangling.ops.some((o) => o.includes('ws/.claude'))).toBe(false);
  });

  it('masks every existing spelling of a case-insensitive deny, and only those', () => {
    const { ops, root } = tree({
      'home/.ssh/id_rsa': 'k',
      'home/.SSH/id_rsa': 'k',
      'home/.sshx/config': '',
      'ws/a/.ENV': 'x',
    });
    expect(ops).toEqual(
      expect.arrayContaining(['mask-dir home/.ssh', 'mask-dir home/.SSH', 'mask-file ws/a/.ENV']),
    );
    expect(ops.some((o) => o.includes('.sshx'))).toBe(false);
    expect(caseVariants(join(root, 'home', '.Ssh'), new Map()).sort()).toEqual([
      join(root, 'home', '.SSH'),
      join(root, 'home', '.ssh'),
    ]);
  });
});
