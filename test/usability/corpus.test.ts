import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkspaces, type Workspaces } from './buildWorkspaces.js';
import { loadCorpus, parseCorpus } from './corpus.js';

describe('usability corpus data', () => {
  const corpus = loadCorpus();

  it('holds at least 500 distinct commands, each with a reason', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(500);
    expect(new Set(corpus.map((c) => c.command)).size).toBe(corpus.length);
    for (const c of corpus) expect(c.why.length, c.where).toBeGreaterThan(2);
  });

  it('expects running project code to be uncertain (prove or sandbox), and little else', () => {
    // Issue 12 expected ~4 % uncertain (inline code, stdin programs); issue 22 adds every run of project code
    // (test runners, package scripts calling node_modules/.bin, installs with lifecycle scripts, builds).
    const uncertain = corpus.filter((c) => c.expectA === 'uncertain').length / corpus.length;
    expect(uncertain).toBeGreaterThan(0.08);
    expect(uncertain).toBeLessThan(0.2);
  });

  it('is valid bash, every line (one `bash -n` over all of them, each as a function body)', () => {
    const script = corpus.map((c, i) => `case_${i}() {\n${c.command}\n}\n`).join('');
    const r = spawnSync('bash', ['-n'], { input: script, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('rejects a malformed line, naming the file and line', () => {
    expect(() => parseCorpus('ls\tallow\tmaybe\twhy', 'x')).toThrow(/x\.tsv:1/);
    expect(() => parseCorpus('ls\tallow\tallow', 'x')).toThrow(/x\.tsv:1/);
  });

  it('reads a file-level `# policy:` line (before the cases) into each case', () => {
    const [c] = parseCorpus('# policy: policy-network.yaml\n# about\nls\tallow\tallow\tlists', 'x');
    expect(c?.policy).toBe('policy-network.yaml');
    expect(() => parseCorpus('ls\tallow\tallow\tlists\n# policy: p.yaml', 'x')).toThrow(/x\.tsv:2/);
  });

  it('turns ⏎ into a newline so a heredoc stays one line', () => {
    const [c] = parseCorpus("cat > f <<'EOF'⏎x⏎EOF\tallow\tallow\theredoc", 'x');
    expect(c?.command).toBe("cat > f <<'EOF'\nx\nEOF");
  });
});

describe('usability workspaces', () => {
  let w: Workspaces;
  const git = (ws: string, ...args: string[]) =>
    execFileSync('git', args, { cwd: ws, encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin' } });

  beforeAll(() => {
    w = buildWorkspaces();
  });
  afterAll(() => w?.dispose());

  it('lives outside /tmp, which the policy makes writable', () => {
    expect(w.root.startsWith('/tmp/')).toBe(false);
  });

  it('A has no .env; B has one .gitignore lists; C has one it does not', () => {
    const { A, B, C } = w.contexts;
    expect(existsSync(join(A.workspace, '.env'))).toBe(false);
    expect(readFileSync(join(B.workspace, '.env'), 'utf8')).toContain('API_KEY');
    expect(git(B.workspace, 'check-ignore', '.env').trim()).toBe('.env');
    expect(git(C.workspace, 'status', '--porcelain')).toContain('?? .env');
  });

  it('is a real project: commits, a tag, a branch, a modified and an untracked file, two links', () => {
    const ws = w.contexts.A.workspace;
    expect(git(ws, 'rev-list', '--count', 'HEAD').trim()).toBe('3');
    expect(git(ws, 'tag').trim()).toBe('v0.3.0');
    expect(git(ws, 'branch', '--list', 'feature/login')).toContain('feature/login');
    expect(git(ws, 'status', '--porcelain')).toContain(' M src/index.ts');
    expect(lstatSync(join(ws, 'docs', 'latest')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(ws, 'vendor-docs')).isSymbolicLink()).toBe(true);
    expect(existsSync(join(w.contexts.A.home, '.ssh', 'id_rsa'))).toBe(true);
  });
});

// Issue 22's yardstick, checked against the real analysis: with `sandbox: uncertain` (what `toolgate init`
// writes where bubblewrap works) at least 99 % of everyday work runs — allowed, or allowed sandboxed — and no
// case the corpus expects a rule to deny is allowed unconfined.
describe('usability with the OS sandbox on', () => {
  let workspaces: Workspaces;
  beforeAll(() => {
    workspaces = buildWorkspaces();
  });
  afterAll(() => workspaces?.dispose());

  it('≥ 99 % of everyday work is allowed or sandboxed in both workspaces; no expected deny runs unconfined', async () => {
    const { createSandboxedUsabilityGuard, policyFile } = await import('./createUsabilityGuard.js');
    const corpus = loadCorpus();
    // A case is judged under its corpus file's `# policy:` (network.tsv: policy-network.yaml), else policy.yaml.
    const guards = new Map(
      [...new Set(corpus.map((c) => c.policy))].map((p) => [p, createSandboxedUsabilityGuard(policyFile(p))]),
    );
    for (const ws of ['A', 'B'] as const) {
      let everyday = 0;
      let usable = 0;
      const leaks: string[] = [];
      for (const c of corpus) {
        const expected = ws === 'A' ? c.expectA : c.expectB;
        const guard = guards.get(c.policy)!;
        const d = await guard.check({ tool: 'Bash', args: { command: c.command } }, workspaces.contexts[ws], {
          resolvePrompts: false,
        });
        if (expected === 'deny') {
          if (d.action === 'allow' && !d.sandboxed) leaks.push(c.where);
          continue;
        }
        everyday++;
        if (d.action === 'allow') usable++;
      }
      expect(leaks, ws).toEqual([]);
      expect(usable / everyday, `${ws}: ${usable}/${everyday}`).toBeGreaterThanOrEqual(0.99);
    }
  }, 120_000);
});
