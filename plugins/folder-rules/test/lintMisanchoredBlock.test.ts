import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lint, loadPolicy } from '../src/index.js';

const example = new URL('./fixtures/policies/wl-example.json', import.meta.url);

describe('lint: a deny meant for a sensitive folder under an allowed root', () => {
  // Seed 001's example evaluation: `~/workspace/**` then `!/workspace/sensitive/*`, and "`/home/user/workspace/
  // sensitive/secret.txt` → Rule 2 matches (negation) → DENY" — the block names /workspace, not ~/workspace,
  // so that file is allowed. lint says so.
  it("warns on the seed's own example and suggests the pattern it meant", async () => {
    const policy = loadPolicy({
      dialect: 'wunderland',
      source: readFileSync(example, 'utf8'),
      file: 'wl.json',
    });
    const r = await lint(policy);
    const w = r.warnings.filter((x) => x.code === 'deny-outside-allowed-root');
    expect(w).toHaveLength(1);
    expect(w[0]?.message).toContain(
      '!/workspace/sensitive/* does not lie under the allowed root ~/workspace/**',
    );
    expect(w[0]?.message).toContain('files under ~/workspace/sensitive are allowed');
    expect(w[0]?.message).toContain('did you mean !~/workspace/sensitive/*?');
    expect(w[0]?.source).toMatch(/rules\[1\]/);
    expect(r.valid).toBe(true); // a warning: the policy may mean a real /workspace
  });

  it('no warning once the block is under the root, or when it names an unrelated directory', async () => {
    for (const pattern of ['!~/workspace/sensitive/*', '!/etc/**', '!/tmp/private/*']) {
      const source = JSON.stringify({
        defaultPolicy: 'deny',
        rules: [
          { pattern: '~/workspace/**', read: true, write: true },
          { pattern, read: false, write: false },
          { pattern: '/tmp/**', read: true, write: true },
        ],
      });
      const r = await lint(loadPolicy({ dialect: 'wunderland', source, file: 'wl.json' }));
      expect(
        r.warnings.filter((x) => x.code === 'deny-outside-allowed-root'),
        pattern,
      ).toEqual([]);
    }
  });

  it('a deny rule of the native format is checked the same way', async () => {
    const source = JSON.stringify({
      rules: [
        { pattern: '<workspace>/**', access: 'write' },
        { pattern: '/tg-lint-ws/.env', access: 'deny' },
        { pattern: '/project/secrets/**', access: 'deny' },
      ],
    });
    const r = await lint(loadPolicy({ dialect: 'toolgate', source, file: 'p.json' }));
    // `<workspace>` is /tg-lint-ws while linting: its last directory is tg-lint-ws, not project.
    expect(r.warnings.filter((x) => x.code === 'deny-outside-allowed-root')).toEqual([]);
  });
});
