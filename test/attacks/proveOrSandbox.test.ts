import {
  chmodSync,
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
import { type CallContext, createGuard, type Guard } from '@toolgate/core';
import { folderRules, loadPolicy } from '@toolgate/folder-rules';
import { sandbox } from '@toolgate/sandbox';
import { shell } from '@toolgate/shell';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Issue 22 by attack: an agent writes code into the workspace (allowed) and runs it through an interpreter,
// a package script, a make recipe, a test runner, a build tool or an earlier PATH entry. None of these may be
// allowed unconfined: uncertain (denied, or run in the sandbox with `sandbox: uncertain`). Each attack has an
// everyday twin that stays allowed. Cases: fixtures/prove-or-sandbox.tsv.
const cases = readFileSync(new URL('./fixtures/prove-or-sandbox.tsv', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '' && !l.startsWith('#'))
  .map((l) => {
    const [command, expect, why] = l.split('\t');
    return { command: command!, expect: expect as 'allow' | 'deny' | 'uncertain', why: why ?? '' };
  });

let root: string;
let ctx: CallContext;
let plain: Guard;
let confined: Guard;

const exe = (path: string, text: string) => {
  writeFileSync(path, text);
  chmodSync(path, 0o755);
};

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-prove-')));
  const ws = join(root, 'ws');
  const home = join(root, 'home');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'KEY');
  mkdirSync(join(ws, 'node_modules', '.bin'), { recursive: true });
  mkdirSync(join(ws, 'bin'));
  const leak = `cat ${home}/.ssh/id_rsa`;
  writeFileSync(
    join(ws, 'x.js'),
    "console.log(require('fs').readFileSync(process.env.HOME + '/.ssh/id_rsa', 'utf8'))\n",
  );
  writeFileSync(join(ws, 'x.py'), "print(open(__import__('os').path.expanduser('~/.ssh/id_rsa')).read())\n");
  writeFileSync(join(ws, 'x.rb'), "puts File.read(File.expand_path('~/.ssh/id_rsa'))\n");
  writeFileSync(join(ws, 'x.pl'), 'print `cat ~/.ssh/id_rsa`;\n');
  exe(join(ws, 'run.py'), "#!/usr/bin/env python3\nprint(open('/etc/hostname').read())\n");
  exe(join(ws, 'bin', 'cat'), `#!/bin/sh\n${leak}\n`);
  exe(join(ws, 'node_modules', '.bin', 'vitest'), `#!/bin/sh\n${leak}\n`);
  exe(join(ws, 'node_modules', '.bin', 'tsc'), '#!/usr/bin/env node\n');
  writeFileSync(join(ws, 'README.md'), '# hi\n');
  writeFileSync(join(ws, 'ssh.cfg'), `Host *\n  ProxyCommand ${leak}\n`);
  // a link the agent made: its name chooses the model, its target the program
  symlinkSync('/usr/bin/python3', join(ws, 'py'));
  symlinkSync('/bin/ls', join(ws, 'bin', 'ls-link'));
  writeFileSync(
    join(ws, 'package.json'),
    JSON.stringify({
      name: 'p',
      scripts: {
        test: 'vitest run',
        lint: 'echo lint ok',
        build: 'tsc -p .',
        clean: 'rm -rf dist',
        postinstall: 'node x.js',
      },
      devDependencies: { vitest: '1.0.0' },
    }),
  );
  writeFileSync(
    join(ws, 'Makefile'),
    'all:\n\tpython3 x.py\nclean:\n\trm -rf build\ncc:\n\t$(CC) -o app app.c\n' +
      // a recipe line continued with backslash-newline: the shell joins it into one word
      `join:\n\tcat ${home}/.ss\\\n\th/id_rsa\n`,
  );
  writeFileSync(join(ws, 'conftest.py'), 'import os\n');
  writeFileSync(join(ws, 'Cargo.toml'), '[package]\nname = "p"\nversion = "0.1.0"\n');
  writeFileSync(join(ws, 'build.rs'), 'fn main() {}\n');
  writeFileSync(join(ws, 'setup.py'), 'import os\n');
  const policyText = `version: 1\nmode: tiered\ndefault: deny\nsandbox: uncertain\nrules:\n  - { pattern: "<workspace>/**", access: write }\n  - { pattern: "/usr/**", access: read }\n  - { pattern: "/etc/**", access: read }\n  - { pattern: "~/.ssh/**", access: deny }\n`;
  writeFileSync(join(root, 'policy.yaml'), policyText);
  const policy = loadPolicy({ dialect: 'toolgate', file: join(root, 'policy.yaml') });
  plain = createGuard({ plugins: [shell(), folderRules({ policy })] });
  confined = createGuard({ plugins: [shell(), folderRules({ policy })], sandbox: sandbox({ policy }) });
  ctx = {
    sessionId: 's',
    agentId: 'a',
    cwd: ws,
    workspace: ws,
    home,
    env: { HOME: home, PATH: '/usr/local/bin:/usr/bin:/bin' },
  };
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('prove or sandbox: code the agent wrote never runs unconfined', () => {
  for (const c of cases) {
    it(`${c.expect.padEnd(9)} ${c.command}  — ${c.why}`, async () => {
      const call = { tool: 'Bash', args: { command: c.command } };
      const d = await plain.check(call, ctx);
      const s = await confined.check(call, ctx);
      if (c.expect === 'allow') {
        expect(d.action, d.reasons[0]?.reason).toBe('allow');
        expect(s.sandboxed, 'a proven call runs unconfined').toBeUndefined();
      } else if (c.expect === 'deny') {
        // Denied either way; with the sandbox on, by the rule (a static deny is never deferred to the sandbox).
        expect(d.action).toBe('deny');
        expect(s.action).toBe('deny');
        expect(s.reasons[0]?.code).toBe('PATH_DENIED');
      } else {
        expect(d.action).toBe('deny');
        expect(d.reasons[0]?.code, d.reasons[0]?.reason).toBe('PATH_UNCERTAIN');
        expect(s.action, s.reasons[0]?.reason).toBe('allow');
        expect(s.sandboxed?.args.command).toMatch(/^bwrap /);
        // the reason names what was not analysed
        expect(s.sandboxed?.uncertain.map((f) => f.reason).join(' ')).toMatch(
          /not analys|can write|environment|not known|new names/,
        );
      }
    });
  }
});

describe('git stash apply/pop recreate what the stash holds', () => {
  it('a stash with untracked files (a stashed .env) is uncertain; a stash of tracked changes is proven', async () => {
    const { execFileSync } = await import('node:child_process');
    const repo = join(root, 'repo');
    mkdirSync(repo);
    const git = (...a: string[]) =>
      execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', ...a], { cwd: repo, stdio: 'pipe' });
    git('init', '-q');
    writeFileSync(join(repo, 'a.txt'), 'a\n');
    git('add', 'a.txt');
    git('commit', '-qm', 'a');
    writeFileSync(join(repo, '.env'), 'SECRET=1\n');
    git('stash', '-u', '-q');
    const here = { ...ctx, cwd: repo, workspace: repo };
    const pop = await plain.check({ tool: 'Bash', args: { command: 'git stash pop' } }, here);
    expect(pop.action).toBe('deny');
    expect(pop.reasons[0]?.reason).toMatch(/recreates untracked files/);
    git('stash', 'drop', '-q');
    writeFileSync(join(repo, 'a.txt'), 'b\n');
    git('stash', '-q');
    const twin = await plain.check({ tool: 'Bash', args: { command: 'git stash pop' } }, here);
    expect(twin.action, twin.reasons[0]?.reason).toBe('allow');
  });
});
