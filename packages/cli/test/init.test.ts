import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

let root: string;
let project: string;
let home: string;
beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-init-')));
  project = join(root, 'app');
  home = join(root, 'home');
  mkdirSync(join(project, 'packages', 'web'), { recursive: true });
  mkdirSync(join(project, '.git'));
  mkdirSync(home);
  writeFileSync(join(project, 'package.json'), '{"name":"app"}');
  writeFileSync(join(project, 'packages', 'web', 'package.json'), '{"name":"web"}');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function toolgate(args: string[], cwd: string) {
  return runCli(args, { cwd, home });
}

const check = (tool: string, path: string, cwd: string) =>
  toolgate(['check', '--call', JSON.stringify({ tool, args: { path } })], cwd).code;

describe('toolgate init', () => {
  it.each(['standard', 'strict', 'open'])(
    'preset %s: written at the git root (not the nested package), explained, and its own tests pass',
    (preset) => {
      const web = join(project, 'packages', 'web');
      const r = toolgate(['init', '--preset', preset, '--force'], web);
      expect(r.code, r.stderr).toBe(0);
      const file = join(project, 'toolgate.yaml');
      expect(r.stdout).toContain(`wrote ${file}`);
      const text = readFileSync(file, 'utf8');
      expect(text).toMatch(/^# toolgate policy for .*\(node, git\)/);
      expect(text).toMatch(/# SSH keys/);
      expect(text).toMatch(/deny > prompt > read > write/);
      // node detected: the npm cache is readable (not for strict)
      expect(text.includes('~/.npm/**')).toBe(preset !== 'strict');
      const lint = toolgate(['lint'], web);
      expect(lint.stdout).toMatch(/0 error\(s\).*tests 10 passed, 0 failed/);
      expect(lint.code).toBe(0);
      // and it works with no flags from anywhere in the project
      expect(check('read_file', '~/.ssh/id_rsa', web)).toBe(1);
      expect(check('write_file', join(project, 'README.md'), web)).toBe(0);
      expect(check('write_file', '/srv/elsewhere', web)).toBe(1);
      // the agent may read the guard's own policy and hook settings, never rewrite them (that would switch it off)
      expect(check('read_file', join(project, 'toolgate.yaml'), web)).toBe(0);
      expect(check('write_file', join(project, 'toolgate.yaml'), web)).toBe(1);
      expect(check('write_file', join(project, '.claude', 'settings.json'), web)).toBe(1);
      expect(check('write_file', '~/.cache/toolgate/policies/x.json', web)).toBe(1);
    },
  );

  it('never overwrites an existing policy without --force; --stdout writes nothing', () => {
    const other = join(root, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'toolgate.yaml'), 'default: allow\n');
    const r = toolgate(['init'], other);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/already exists.*--force/);
    expect(readFileSync(join(other, 'toolgate.yaml'), 'utf8')).toBe('default: allow\n');
    const fresh = join(root, 'fresh');
    mkdirSync(fresh);
    const printed = toolgate(['init', '--stdout', '--preset', 'strict'], fresh);
    expect(printed.stdout).toMatch(/^# toolgate policy/);
    expect(existsSync(join(fresh, 'toolgate.yaml'))).toBe(false);
    expect(toolgate(['init', '--preset', 'paranoid'], fresh).code).toBe(2);
  });

  it('--user writes ~/.config/toolgate/policy.yaml, which a directory without a policy then uses', () => {
    expect(toolgate(['init', '--user', '--preset', 'standard'], home).code).toBe(0);
    expect(existsSync(join(home, '.config', 'toolgate', 'policy.yaml'))).toBe(true);
    const bare = join(root, 'bare');
    mkdirSync(bare);
    expect(check('read_file', '~/.ssh/id_rsa', bare)).toBe(1);
  });
});

// Issue 22: the sandbox is the normal path for what analysis cannot prove.
describe('toolgate init probes the OS sandbox', () => {
  it('writes `sandbox: uncertain` where bubblewrap works, and says so', () => {
    const r = toolgate(['init', '--preset', 'standard', '--force'], project);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/sandbox: uncertain — what analysis cannot prove runs inside bubblewrap/);
    const text = readFileSync(join(project, 'toolgate.yaml'), 'utf8');
    expect(text).toMatch(/^sandbox: uncertain$/m);
    expect(text).not.toMatch(/^uncertain: prompt$/m);
    // a script the agent wrote is sandboxed, not allowed unconfined and not refused
    writeFileSync(join(project, 'x.py'), 'print(1)\n');
    const d = toolgate(
      ['check', '--json', '--call', JSON.stringify({ tool: 'Bash', args: { command: 'python3 x.py' } })],
      project,
    );
    expect(d.code, d.stderr).toBe(0);
    const out = JSON.parse(d.stdout) as { decision: string; sandboxed?: { uncertain: { reason: string }[] } };
    expect(out.sandboxed?.uncertain.map((f) => f.reason).join(' ')).toMatch(/x\.py/);
    const text2 = toolgate(
      ['check', '--call', JSON.stringify({ tool: 'Bash', args: { command: 'python3 x.py' } })],
      project,
    );
    expect(text2.stdout).toMatch(
      /ALLOW \(sandboxed\)[\s\S]*would run in the sandbox compiled from the policy, because:\n {4}- .*x\.py/,
    );
    const explained = toolgate(
      ['explain', '--call', JSON.stringify({ tool: 'Bash', args: { command: 'python3 x.py' } })],
      project,
    );
    expect(explained.stdout).toMatch(/decision: ALLOW \(sandboxed\)[\s\S]*would run in the sandbox/);
    // twin: `python3 --version` runs no project code and stays a plain allow
    const v = toolgate(
      ['check', '--json', '--call', JSON.stringify({ tool: 'Bash', args: { command: 'python3 --version' } })],
      project,
    );
    expect(JSON.parse(v.stdout).sandboxed).toBeUndefined();
    expect(v.code).toBe(0);
  });

  it('writes `uncertain: prompt` with the reason where bubblewrap is missing, and that policy asks', () => {
    // PATH without bwrap: the probe fails as on a machine without bubblewrap.
    const bin = join(root, 'nobwrap');
    mkdirSync(bin, { recursive: true });
    const r = runCli(['init', '--preset', 'standard', '--force'], { cwd: project, home, env: { PATH: bin } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /uncertain: prompt — bubblewrap is not usable here \(bubblewrap is not installed/,
    );
    const text = readFileSync(join(project, 'toolgate.yaml'), 'utf8');
    expect(text).toMatch(/^uncertain: prompt$/m);
    expect(text).not.toMatch(/^sandbox: uncertain$/m);
    writeFileSync(join(project, 'x.py'), 'print(1)\n');
    const d = toolgate(
      ['check', '--call', JSON.stringify({ tool: 'Bash', args: { command: 'python3 x.py' } })],
      project,
    );
    expect(d.code, d.stdout).toBe(3);
  });
});
