import { spawnSync } from 'node:child_process';
import {
  chmodSync,
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
import { BIN } from './support/cli.js';

// Issue 25, item 4: `toolgate run` finds its policy like every other command — toolgate.yaml or
// .toolgate/policy.yaml from the cwd upwards, then ~/.config/toolgate/policy.yaml, then $TOOLGATE_POLICY — both
// when it plans in its own process and when the warm hook server plans it. Item 7: a program not visible
// inside the sandbox is exit 127 with a message saying so.
let root: string;
let project: string;
let home: string;

const POLICY = [
  'rules:',
  '  - { pattern: "<workspace>/**", access: write }',
  '  - { pattern: "**/.env", access: deny }',
  '  - { pattern: "/opt/tg-hidden/**", access: deny }',
  '',
].join('\n');

beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-run-discovery-')));
  project = join(root, 'app');
  home = join(root, 'home');
  mkdirSync(join(project, 'src', 'deep'), { recursive: true });
  mkdirSync(home);
  writeFileSync(join(project, 'toolgate.yaml'), POLICY);
  writeFileSync(join(project, '.env'), 'CANARY-ENV');
  const hidden = join(project, 'tools');
  mkdirSync(hidden);
  writeFileSync(join(hidden, 'prog'), '#!/bin/sh\necho ran\n');
  chmodSync(join(hidden, 'prog'), 0o755);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.each(['in-process', 'served'] as const)('toolgate run without --policy (%s)', (mode) => {
  let trace: string;
  const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: home,
    TOOLGATE_HOOK_TRACE: trace,
    TOOLGATE_HOOK_SERVER_IDLE_MS: '20000',
    ...(mode === 'in-process' ? { TOOLGATE_HOOK_SERVER: 'off' } : {}),
    ...extra,
  });
  const run = (cwd: string, command: string[], extra: NodeJS.ProcessEnv = {}, args: string[] = []) => {
    const r = spawnSync(process.execPath, [BIN, 'run', ...args, '--', ...command], {
      cwd,
      env: env(extra),
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  const lastTrace = () => readFileSync(trace, 'utf8').trim().split('\n').at(-1) ?? '';

  beforeAll(async () => {
    trace = join(root, `trace-${mode}.log`);
    if (mode !== 'served') return;
    // The first run starts the server; wait until runs are served.
    for (let i = 0; i < 50; i++) {
      run(project, ['true']);
      if (/run served by \d+$/.test(lastTrace())) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`no hook server served a run: ${lastTrace()}`);
  }, 60_000);

  const served = () => {
    if (mode === 'served') expect(lastTrace()).toMatch(/run served by \d+$/);
    else expect(lastTrace()).not.toMatch(/served by/);
  };

  it("finds the project's toolgate.yaml from a subdirectory; its directory is the workspace", () => {
    const cwd = join(project, 'src', 'deep');
    const r = run(cwd, ['sh', '-c', `echo ${mode} > ../../written-${mode}.txt && cat ../../.env`]);
    served();
    expect(readFileSync(join(project, `written-${mode}.txt`), 'utf8')).toBe(`${mode}\n`); // the workspace is writable
    expect(r.code).not.toBe(0); // …and the deny rule holds
    expect(r.out).not.toContain('CANARY');
  });

  it('finds .toolgate/policy.yaml, then ~/.config/toolgate/policy.yaml, then $TOOLGATE_POLICY', () => {
    const other = join(root, `other-${mode}`);
    mkdirSync(join(other, '.toolgate'), { recursive: true });
    writeFileSync(join(other, '.toolgate', 'policy.yaml'), POLICY);
    let r = run(other, ['sh', '-c', 'echo x > made.txt'], {}, ['--print']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(new RegExp(`--bind ${other} ${other}\\b`)); // the project root, not .toolgate/
    const bare = join(root, `bare-${mode}`);
    mkdirSync(bare);
    r = run(bare, ['true']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no policy found/);
    expect(existsSync(join(bare, 'x'))).toBe(false);
    const envPolicy = join(root, `env-${mode}.yaml`);
    writeFileSync(envPolicy, POLICY);
    r = run(bare, ['true'], { TOOLGATE_POLICY: envPolicy });
    expect(r.code, r.err).toBe(0);
    served();
    const user = join(root, `xdg-${mode}`);
    mkdirSync(join(user, 'toolgate'), { recursive: true });
    writeFileSync(
      join(user, 'toolgate', 'policy.yaml'),
      'rules:\n  - { pattern: "/nowhere/**", access: bogus }\n',
    );
    r = run(bare, ['true'], { XDG_CONFIG_HOME: user, TOOLGATE_POLICY: envPolicy });
    expect(r.code).toBe(2); // the user's file comes before $TOOLGATE_POLICY: its error is the one reported
    expect(r.err).toContain(join(user, 'toolgate', 'policy.yaml'));
  });

  it('a program not visible inside the sandbox: exit 127 and a message that says so', () => {
    let r = run(project, ['tg-no-such-program']);
    expect(r.code).toBe(127);
    expect(r.err).toMatch(/toolgate run: tg-no-such-program: command not found inside the sandbox/);
    // A program that exists outside, under a path the policy denies (masked inside).
    const policy = join(root, `hide-${mode}.yaml`);
    writeFileSync(policy, POLICY.replace('/opt/tg-hidden/**', `${join(project, 'tools')}/**`));
    r = run(project, [join(project, 'tools', 'prog')], {}, ['--policy', policy]);
    expect(r.code).toBe(127);
    expect(r.err).toContain(
      `toolgate run: ${join(project, 'tools', 'prog')}: command not found inside the sandbox`,
    );
    // A command's own 127 stays its own, and a visible program runs.
    expect(run(project, ['sh', '-c', 'exit 127']).err).toBe('');
    expect(run(project, [join(project, 'tools', 'prog')]).out).toBe('ran\n');
  });
});
