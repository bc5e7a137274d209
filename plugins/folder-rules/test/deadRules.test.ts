import { createGuard, type ToolDescriptor } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { folderRules, lint, loadPolicy } from '../src/index.js';

// Issue 25, item 3: tiered `<workspace>/** read` + `<workspace>/out/** write` — the write rule can never apply.
const native = (o: object) => loadPolicy({ dialect: 'toolgate', source: JSON.stringify(o), file: 'p.json' });
const dead = {
  mode: 'tiered',
  default: 'deny',
  rules: [
    { pattern: '<workspace>/**', access: 'read' },
    { pattern: '<workspace>/out/**', access: 'write' },
    { pattern: '/srv/data/**', access: 'write' },
  ],
};
const ctx = { sessionId: 's', agentId: 'a', cwd: '/ws', workspace: '/ws', home: '/home/u', env: {} };

describe('rules that can never apply (tiered)', () => {
  it('lint names the dead write rule and the read rule that shadows it', async () => {
    const r = await lint(native(dead));
    const finding = r.warnings.find((w) => w.code === 'never-applies');
    expect(finding?.source).toBe('toolgate:p.json#rules[1]');
    expect(finding?.message).toContain('<workspace>/out/** (write) can never apply');
    expect(finding?.message).toContain('<workspace>/** (read)');
    expect(r.warnings.filter((w) => w.code === 'never-applies')).toHaveLength(1);
  });

  it('a prompt rule over an allow is found too; disjoint ops or vectors are not a shadow', async () => {
    const r = await lint(
      native({
        mode: 'tiered',
        rules: [
          { pattern: '/a/**', access: 'prompt' },
          { pattern: '/a/b/**', access: 'read' },
          { pattern: '/c/**', access: 'read', ops: ['read'] },
          { pattern: '/c/d/**', access: 'write', ops: ['write'] },
          { pattern: '/e/**', access: 'read', vector: 'shell' },
          { pattern: '/e/f/**', access: 'write' },
        ],
      }),
    );
    expect(r.warnings.filter((w) => w.code === 'never-applies').map((w) => w.source)).toEqual([
      'toolgate:p.json#rules[1]',
    ]);
    expect(r.warnings.filter((w) => w.code === 'redundant')).toEqual([]);
  });

  it('first-match: the same rules are not dead (the first match decides)', async () => {
    const r = await lint(native({ ...dead, mode: 'first-match', rules: [...dead.rules].reverse() }));
    expect(r.warnings.map((w) => w.code)).not.toContain('never-applies');
  });

  it('the deny envelope and the tool descriptions do not advertise out/ for writes', async () => {
    const guard = createGuard({ plugins: [folderRules({ policy: native(dead) })] });
    const d = await guard.check({ tool: 'write_file', args: { path: '/ws/out/x' } }, ctx);
    expect(d.action).toBe('deny');
    expect(d.envelope?.allowed_paths ?? []).toEqual(['/srv/data']);
    const read = await guard.check({ tool: 'read_file', args: { path: '/etc/passwd' } }, ctx);
    // out/ is readable (the read tier allows reads): it stays a root for reads.
    expect(read.envelope?.allowed_paths).toEqual(['/ws', '/ws/out', '/srv/data']);
    const tools: ToolDescriptor[] = [
      { name: 'write_file', description: 'Write a file.' },
      { name: 'read_file', description: 'Read a file.' },
    ];
    const out = guard.describeTools(tools, ctx);
    const write = out.find((t) => t.name === 'write_file')?.description ?? '';
    expect(write).toContain('/srv/data');
    expect(write).not.toContain('/ws/out');
    expect(out.find((t) => t.name === 'read_file')?.description).toContain('/ws');
  });

  it('an allow root inside an earlier first-match deny is not advertised either', async () => {
    const policy = native({
      mode: 'first-match',
      default: 'deny',
      rules: [
        { pattern: '/ws/secret/**', access: 'deny' },
        { pattern: '/ws/secret/public/**', access: 'write' },
        { pattern: '/ws/src/**', access: 'write' },
      ],
    });
    const guard = createGuard({ plugins: [folderRules({ policy })] });
    const d = await guard.check({ tool: 'write_file', args: { path: '/etc/x' } }, ctx);
    expect(d.envelope?.allowed_paths).toEqual(['/ws/src']);
  });
});
