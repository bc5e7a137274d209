import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The built binary, as scripts run it: the CLI contract (exit 0 allow, 1 deny, 3 prompt, 2 error) is what
// other tools depend on, so it is tested through a real child process.
const bin = fileURLToPath(new URL('../bin/toolgate.cjs', import.meta.url));
let root: string;
let ws: string;
let home: string;
const run = (args: string[], env: Record<string, string | undefined> = {}) =>
  spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    timeout: 20_000,
    cwd: root,
    env: { PATH: process.env.PATH, HOME: home, ...env },
  });

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'toolgate-cli-check-'));
  ws = join(root, 'ws');
  home = join(root, 'home');
  mkdirSync(join(ws, 'src'), { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'secret');
  writeFileSync(join(ws, 'src', 'a.ts'), '');
  // A link inside the workspace that points at the denied keys: judged by where it really lands.
  symlinkSync(join(home, '.ssh'), join(ws, 'keys'));
  writeFileSync(
    join(root, 'policy.yaml'),
    [
      'default: deny',
      'rules:',
      '  - { pattern: "<workspace>/**", access: write }',
      '  - { pattern: "<workspace>/secrets/**", access: prompt }',
      '  - { pattern: "~/.ssh/**", access: deny }',
      'tests:',
      '  - { path: "<workspace>/x", op: write, expect: allow }',
    ].join('\n'),
  );
  writeFileSync(
    join(root, 'failing.yaml'),
    'default: deny\ntests:\n  - { path: "/etc/hosts", op: read, expect: allow }\n',
  );
  writeFileSync(join(root, 'broken.yaml'), 'rules:\n  - { pattern: "/x", access: maybe }\n');
  writeFileSync(
    join(root, 'fg.json'),
    JSON.stringify({ readPaths: ['learnings'], writePaths: ['execution'] }),
  );
  writeFileSync(
    join(root, 'of.toml'),
    '[file_policy]\ndefault = "deny"\nwrite_paths = ["<workspace>/**"]\ndeny_paths = ["**/.ssh/**"]\n',
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const check = (call: object, ...extra: string[]) =>
  run([
    'check',
    '--dialect',
    'toolgate',
    '--policy',
    join(root, 'policy.yaml'),
    '--cwd',
    ws,
    '--call',
    JSON.stringify(call),
    ...extra,
  ]);

describe('toolgate check', () => {
  it('exit 0 on allow', () => {
    const r = check({ tool: 'write_file', args: { path: 'src/b.ts' } });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^ALLOW write_file/);
  });

  it('exit 1 on deny, naming the rule and its source', () => {
    const r = check({ tool: 'read_file', args: { path: '~/.ssh/id_rsa' } });
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/PATH_DENIED/);
    expect(r.stdout).toMatch(/deny rule ~\/\.ssh\/\*\*/);
    expect(r.stdout).toMatch(/policy\.yaml#rules\[2\]/);
  });

  it('exit 3 on prompt (nobody is asked)', () => {
    const r = check({ tool: 'write_file', args: { path: 'secrets/k' } });
    expect(r.status).toBe(3);
    expect(r.stdout).toMatch(/PATH_PROMPT/);
  });

  it('--json prints decision, reasons and accesses', () => {
    const r = check({ tool: 'read_file', args: { path: 'keys/id_rsa' } }, '--json');
    expect(r.status).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.decision).toBe('deny');
    expect(out.reasons[0].code).toBe('PATH_DENIED');
    // The real symlink was followed: the access lands in ~/.ssh.
    expect(out.accesses[0].realPath).toBe(join(home, '.ssh', 'id_rsa'));
    expect(out.policy.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('the agent cwd is --cwd, never the CLI process cwd', () => {
    const r = check({ tool: 'write_file', args: { path: 'x' } }, '--json');
    expect(JSON.parse(r.stdout).accesses[0].realPath).toBe(join(ws, 'x'));
  });

  it('--workspace defaults to --cwd, and can differ from it', () => {
    const r = run([
      'check',
      '--dialect',
      'toolgate',
      '--policy',
      join(root, 'policy.yaml'),
      '--cwd',
      join(ws, 'src'),
      '--workspace',
      ws,
      '--call',
      '{"tool":"write_file","args":{"path":"../y"}}',
    ]);
    expect(r.status).toBe(0);
    const outside = run([
      'check',
      '--dialect',
      'toolgate',
      '--policy',
      join(root, 'policy.yaml'),
      '--cwd',
      join(ws, 'src'),
      '--call',
      '{"tool":"write_file","args":{"path":"../y"}}',
    ]);
    expect(outside.status).toBe(1);
  });

  it('HOME comes from the environment', () => {
    const other = join(root, 'other-home');
    const r = run(
      [
        'check',
        '--dialect',
        'toolgate',
        '--policy',
        join(root, 'policy.yaml'),
        '--cwd',
        ws,
        '--json',
        '--call',
        '{"tool":"read_file","args":{"path":"~/.ssh/id_rsa"}}',
      ],
      { HOME: other },
    );
    expect(r.status).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.accesses[0].realPath).toBe(join(other, '.ssh', 'id_rsa'));
    expect(out.reasons[0].reason).toMatch(/deny rule/);
    const unset = run(
      [
        'check',
        '--dialect',
        'toolgate',
        '--policy',
        join(root, 'policy.yaml'),
        '--cwd',
        ws,
        '--call',
        '{"tool":"read_file","args":{"path":"x"}}',
      ],
      { HOME: undefined },
    );
    expect(unset.status).toBe(2);
    expect(unset.stderr).toMatch(/HOME must be set/);
  });

  it('exit 2 on a bad --call, an unknown dialect, a missing or invalid policy', () => {
    expect(check({ tool: 'read_file' }, '--call', 'not json').status).toBe(2);
    const noTool = run([
      'check',
      '--dialect',
      'toolgate',
      '--policy',
      join(root, 'policy.yaml'),
      '--call',
      '{"args":{}}',
    ]);
    expect(noTool.status).toBe(2);
    expect(noTool.stderr).toMatch(/"tool"/);
    const dialect = run([
      'check',
      '--dialect',
      'nope',
      '--policy',
      join(root, 'policy.yaml'),
      '--call',
      '{"tool":"x"}',
    ]);
    expect(dialect.status).toBe(2);
    expect(dialect.stderr).toMatch(/--dialect must be one of/);
    const missing = run([
      'check',
      '--dialect',
      'toolgate',
      '--policy',
      join(root, 'nope.yaml'),
      '--call',
      '{"tool":"x"}',
    ]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/nope\.yaml/);
    const broken = run([
      'check',
      '--dialect',
      'toolgate',
      '--policy',
      join(root, 'broken.yaml'),
      '--call',
      '{"tool":"x"}',
    ]);
    expect(broken.status).toBe(2);
    expect(broken.stderr).toMatch(/broken\.yaml: field rules\.0\.access/);
    expect(broken.stderr).toMatch(/"maybe"/);
  });

  it('shell tools are analysed by @toolgate/shell and judged by the same policy', () => {
    const denied = check({ tool: 'shell_execute', args: { command: 'cat ~/.ssh/id_rsa' } }, '--json');
    expect(denied.status).toBe(1);
    const out = JSON.parse(denied.stdout);
    expect(out.reasons[0].code).toBe('PATH_DENIED');
    expect(out.accesses.some((a: { origin: string }) => a.origin.startsWith('shell:'))).toBe(true);
    expect(check({ tool: 'Bash', args: { command: 'cat src/a.ts > src/b.ts' } }).status).toBe(0);
    expect(check({ tool: 'terminal', args: { command: 'cp src/a.ts keys/x' } }).status).toBe(1);
  });

  it('Hermes: terminal lists judge shell accesses, allow_metacharacters reaches the shell plugin', () => {
    writeFileSync(
      join(root, 'hermes.yaml'),
      `tools:\n  terminal:\n    allowed_paths: [${ws}, /tmp]\n    denied_paths: [~/.ssh]\n  file:\n    allowed_read_paths: [${ws}]\n`,
    );
    const h = (call: object) =>
      run([
        'check',
        '--dialect',
        'hermes',
        '--policy',
        join(root, 'hermes.yaml'),
        '--cwd',
        ws,
        '--call',
        JSON.stringify(call),
      ]);
    expect(h({ tool: 'terminal', args: { command: 'ls src' } }).status).toBe(0);
    expect(h({ tool: 'terminal', args: { command: 'cat /etc/hosts' } }).status).toBe(1);
    const meta = h({ tool: 'terminal', args: { command: 'echo $(cat src/a.ts)' } });
    expect(meta.status).toBe(1);
    expect(meta.stdout).toMatch(/SHELL_METACHARACTER|metacharacter/i);
  });

  it('--strict runs the policy tests: passing ones let the check through, failing ones are exit 2', () => {
    expect(check({ tool: 'write_file', args: { path: 'x' } }, '--strict').status).toBe(0);
    const r = run([
      'check',
      '--dialect',
      'toolgate',
      '--policy',
      join(root, 'failing.yaml'),
      '--cwd',
      ws,
      '--strict',
      '--call',
      '{"tool":"web_search","args":{}}',
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/policy test\(s\) failed/);
  });

  it('speaks the other dialects: folderguard relative paths and traversal, openfang tiers', () => {
    const fg = (call: object) =>
      run([
        'check',
        '--dialect',
        'folderguard',
        '--policy',
        join(root, 'fg.json'),
        '--cwd',
        ws,
        '--call',
        JSON.stringify(call),
      ]);
    expect(fg({ tool: 'update_workspace_file', args: { filepath: 'execution/r.json' } }).status).toBe(0);
    expect(fg({ tool: 'update_workspace_file', args: { filepath: 'learnings/r.json' } }).status).toBe(1);
    const trav = fg({ tool: 'read_workspace_file', args: { filepath: '../Downloads/x' } });
    expect(trav.status).toBe(1);
    expect(trav.stdout).toMatch(/PATH_TRAVERSAL/);
    const of = (call: object) =>
      run([
        'check',
        '--dialect',
        'openfang',
        '--policy',
        join(root, 'of.toml'),
        '--cwd',
        ws,
        '--call',
        JSON.stringify(call),
      ]);
    expect(of({ tool: 'file_write', args: { path: 'src/x' } }).status).toBe(0);
    expect(of({ tool: 'file_read', args: { path: 'keys/id_rsa' } }).status).toBe(1);
  });
});

describe('dialects: optional, inferred, and never silently wrong (issue 17)', () => {
  const read = JSON.stringify({ tool: 'read_file', args: { path: '~/.ssh/id_rsa' } });
  it('check, explain, lint infer the dialect from the file when --dialect is omitted', () => {
    const native = run([
      'check',
      '--policy',
      join(root, 'policy.yaml'),
      '--cwd',
      ws,
      '--call',
      read,
      '--json',
    ]);
    expect(native.status, native.stderr).toBe(1);
    expect(JSON.parse(native.stdout).policy.dialect).toBe('toolgate');
    const of = run(['check', '--policy', join(root, 'of.toml'), '--cwd', ws, '--call', read, '--json']);
    expect(JSON.parse(of.stdout).policy.dialect).toBe('openfang');
    expect(run(['explain', '--policy', join(root, 'fg.json'), '--cwd', ws, '--call', read]).status).toBe(1);
    expect(run(['lint', '--policy', join(root, 'policy.yaml'), '--cwd', ws]).status).toBe(0);
  });

  it('the repro: a native policy with --dialect hermes or openfang is exit 2 naming the mismatch, never an allow', () => {
    for (const wrong of ['hermes', 'openfang', 'wolo', 'wunderland', 'folderguard']) {
      const r = run([
        'check',
        '--dialect',
        wrong,
        '--policy',
        join(root, 'policy.yaml'),
        '--cwd',
        ws,
        '--call',
        read,
      ]);
      expect(r.status, wrong).toBe(2);
      expect(r.stderr, wrong).toMatch(new RegExp(`--dialect ${wrong} recognises nothing.*a toolgate policy`));
    }
  });
});

describe('toolgate explain', () => {
  it('prints the trace: accesses, resolution, rules with their sources, and why', () => {
    const r = run([
      'explain',
      '--dialect',
      'toolgate',
      '--policy',
      join(root, 'policy.yaml'),
      '--cwd',
      ws,
      '--call',
      '{"tool":"read_file","args":{"path":"keys/id_rsa"}}',
    ]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/decision: DENY/);
    expect(r.stdout).toMatch(/lexical: .*\/ws\/keys\/id_rsa/);
    expect(r.stdout).toMatch(/real: +.*\/home\/\.ssh\/id_rsa/);
    expect(r.stdout).toMatch(/symlink: .*\/ws\/keys -> /);
    expect(r.stdout).toMatch(/✓ deny +~\/\.ssh\/\*\* = .*\/home\/\.ssh\/\*\*/);
    expect(r.stdout).toMatch(/policy\.yaml#rules\[2\]/);
    expect(r.stdout).toMatch(/=> deny: deny rule ~\/\.ssh\/\*\* is the most restrictive match/);
  });

  it('--json gives the same trace as data', () => {
    const r = run([
      'explain',
      '--dialect',
      'toolgate',
      '--policy',
      join(root, 'policy.yaml'),
      '--cwd',
      ws,
      '--json',
      '--call',
      '{"tool":"write_file","args":{"path":"secrets/a"}}',
    ]);
    expect(r.status).toBe(3);
    const out = JSON.parse(r.stdout);
    expect(out.decision).toBe('prompt');
    expect(out.accesses[0].decidedBy.pattern).toBe('<workspace>/secrets/**');
    expect(out.accesses[0].rules.filter((x: { matched: boolean }) => x.matched)).toHaveLength(2);
  });
});

describe('toolgate explain: subtrees and lists', () => {
  it('names the existing entry that decided a subtree access, and prints list operations', () => {
    mkdirSync(join(ws, 'secrets'), { recursive: true });
    writeFileSync(join(ws, 'secrets', 'notes.txt'), '');
    const explain = (call: object) =>
      run([
        'explain',
        '--dialect',
        'toolgate',
        '--policy',
        join(root, 'policy.yaml'),
        '--cwd',
        ws,
        '--call',
        JSON.stringify(call),
      ]);
    const grep = explain({ tool: 'Grep', args: { path: '.' } });
    expect(grep.status).toBe(3);
    expect(grep.stdout).toMatch(/access 1: read \(subtree\) "\."/);
    expect(grep.stdout).toMatch(/decided by existing entry: .*\/ws\/secrets/);
    expect(grep.stdout).toMatch(/Grep would read .*\/ws\/secrets/);
    const ls = explain({ tool: 'list_directory', args: { path: join(home, '.ssh') } });
    expect(ls.status).toBe(1);
    expect(ls.stdout).toMatch(/access 1: list /);
  });
});

describe('toolgate lint', () => {
  it('exit 0 for a clean policy whose tests pass', () => {
    const r = run(['lint', '--dialect', 'toolgate', '--policy', join(root, 'policy.yaml'), '--cwd', ws]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/tests 1 passed, 0 failed/);
  });

  it('exit 1 when a test fails or a deny can never win', () => {
    expect(run(['lint', '--dialect', 'toolgate', '--policy', join(root, 'failing.yaml')]).status).toBe(1);
    writeFileSync(
      join(root, 'wl.json'),
      JSON.stringify({
        defaultPolicy: 'deny',
        rules: [
          { pattern: '/home/**', read: true, write: false },
          { pattern: '/home/u/.ssh/**', read: false, write: false },
        ],
      }),
    );
    const r = run(['lint', '--dialect', 'wunderland', '--policy', join(root, 'wl.json'), '--json']);
    expect(r.status).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.errors[0].code).toBe('deny-never-wins');
    expect(out.errors[0].source).toMatch(/wl\.json#rules\[1\]/);
  });
});
