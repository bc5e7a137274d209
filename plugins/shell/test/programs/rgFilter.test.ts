import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { extractAccesses } from '../../src/index.js';
import { context, sh, touchesEnv } from './envJudge.js';

// ripgrep skips hidden and gitignored files unless told otherwise (rg(1), GUIDE.md "Automatic filtering").
const repo = mkdtempSync(join(tmpdir(), 'tg-rg-'));
const plain = mkdtempSync(join(tmpdir(), 'tg-rg-plain-'));
afterAll(() => {
  rmSync(repo, { recursive: true, force: true });
  rmSync(plain, { recursive: true, force: true });
});
for (const d of [repo, plain]) {
  mkdirSync(join(d, 'src'), { recursive: true });
  writeFileSync(join(d, 'src/a.ts'), 'import x\n');
  writeFileSync(join(d, '.env'), 'API_KEY=1\n');
}
sh(repo, 'git', 'init', '-q');
writeFileSync(join(repo, '.gitignore'), '.env\n');
mkdirSync(join(repo, 'logs'));
writeFileSync(join(repo, 'logs/.env'), 'K=1\n');

const verdict = (cmd: string, cwd = repo) =>
  touchesEnv(extractAccesses(cmd, context(cwd)).accesses) ?? 'clean';

describe('rg: hidden and gitignored files are skipped as ripgrep skips them', () => {
  it.each(['rg TODO', 'rg --hidden API_KEY', "rg -l import -g '*.ts'", 'rg -n x src', "rg -g '!*.md' x"])(
    '%s does not reach .env (twin of a false deny)',
    (cmd) => expect(verdict(cmd)).toBe('clean'),
  );
  it.each([
    'rg -uu API_KEY',
    'rg --no-ignore --hidden API_KEY',
    'rg -. --no-ignore-vcs API_KEY',
    "rg -g '.env' API_KEY",
    "rg -g '*' API_KEY",
    "rg --iglob '*.ENV' API_KEY",
    'rg API_KEY .env',
    'rg -uuu API_KEY',
    "rg -g 'logs/*' K",
  ])('%s reaches .env (attack)', (cmd) => expect(verdict(cmd)).not.toBe('clean'));
  it('outside a git repository .gitignore rules do not apply: --hidden reaches .env', () => {
    expect(verdict('rg TODO', plain)).toBe('clean');
    expect(verdict('rg --hidden API_KEY', plain)).not.toBe('clean');
  });
});
