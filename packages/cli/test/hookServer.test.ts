import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from './support/cli.js';

// The hook server (src/hook/hookServer.ts, bin/toolgate.cjs): a warm process answers `toolgate hook` calls.
// It must never change a decision, and any failure of it must end in the caller answering in its own
// process. Everything here runs the built CLI as Claude Code does (event on stdin, answer on stdout), against
// a real server process, real files and symlinks; TOOLGATE_HOOK_TRACE says who answered each call.

let root: string;
let home: string;
let trace: string;
const projects: Record<'a' | 'b', string> = { a: '', b: '' };

const POLICY_A = [
  'default: deny',
  'rules:',
  '  - { pattern: "<workspace>/**", access: write }',
  '  - { pattern: "<workspace>/secret/**", access: deny }',
  '  - { pattern: "<workspace>/ask/**", access: prompt }',
  '  - { pattern: "~/.ssh/**", access: deny }',
  '  - { pattern: "/usr/**", access: read }',
  '  - { pattern: "/tmp/**", access: write }',
  '',
].join('\n');
// Project b reads everything in its workspace but writes nothing.
const POLICY_B = ['default: deny', 'rules:', '  - { pattern: "<workspace>/**", access: read }', ''].join(
  '\n',
);

function spool(): string {
  const dir = join(home, '.cache', 'toolgate');
  const name = existsSync(dir) ? readdirSync(dir).find((n) => n.startsWith('hookd-')) : undefined;
  return name === undefined ? '' : join(dir, name);
}

/** The pid of the running server, once it listens on its socket (a socket bound now is in /proc/net/unix). */
function serverPid(): number | undefined {
  try {
    if (!readFileSync('/proc/net/unix', 'utf8').includes(` ${join(spool(), 'sock')}\n`)) return undefined;
    const pid = Number.parseInt(readFileSync(join(spool(), 'server.pid'), 'utf8'), 10);
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

async function waitFor(check: () => boolean, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
}

function event(project: string, tool: string, input: Record<string, unknown>): string {
  return JSON.stringify({
    session_id: 's',
    transcript_path: join(root, 't.jsonl'),
    cwd: project,
    hook_event_name: 'PreToolUse',
    tool_name: tool,
    tool_input: input,
  });
}

interface Answer {
  code: number | null;
  stdout: string;
  stderr: string;
  by: string;
}

function lastTrace(): string {
  const lines = existsSync(trace) ? readFileSync(trace, 'utf8').trim().split('\n') : [];
  return lines.at(-1)?.replace(/^\d+ /, '') ?? '';
}

/** The environment of a hook call of `project`; `env` adds to (or, with undefined values, removes from) it. */
function hookEnv(project: string, env: Record<string, string | undefined> = {}): Record<string, string> {
  const full: Record<string, string> = {};
  const base = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CACHE_HOME: join(home, '.cache'),
    TOOLGATE_HOOK_TRACE: trace,
  };
  for (const [k, v] of Object.entries({ ...base, CLAUDE_PROJECT_DIR: project, ...env }))
    if (v !== undefined) full[k] = v;
  return full;
}

/** One hook call of `project`, answered in full before it returns. */
function hook(project: string, input: string, env: Record<string, string | undefined> = {}): Answer {
  const r = spawnSync(process.execPath, [BIN, 'hook', 'claude-code'], {
    cwd: project,
    env: hookEnv(project, env),
    input,
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, by: lastTrace() };
}

function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

/** The answer without what differs between any two calls (the decision id). */
function same(a: Answer): string {
  return JSON.stringify({
    code: a.code,
    stdout: a.stdout.replace(/"decision_id\\":\\"[^\\]*\\"/g, 'ID'),
    stderr: a.stderr,
  });
}

async function startServer(project: string): Promise<number> {
  hook(project, event(project, 'Read', { file_path: join(project, 'a.txt') }));
  expect(await waitFor(() => serverPid() !== undefined)).toBe(true);
  return serverPid()!;
}

function stopServer(): void {
  const pid = serverPid();
  if (pid !== undefined) process.kill(pid, 'SIGKILL');
}

beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-hook-server-')));
  home = join(root, 'home');
  trace = join(root, 'trace.log');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'key');
  for (const [name, policy] of [
    ['a', POLICY_A],
    ['b', POLICY_B],
  ] as const) {
    const dir = join(root, name);
    mkdirSync(join(dir, 'secret'), { recursive: true });
    mkdirSync(join(dir, 'ask'), { recursive: true });
    writeFileSync(join(dir, 'a.txt'), 'a');
    writeFileSync(join(dir, 'toolgate.yaml'), policy);
    projects[name] = dir;
  }
});

afterAll(() => {
  stopServer();
  rmSync(root, { recursive: true, force: true });
});

describe('hook server', () => {
  it('answers every call exactly as the call answered in its own process would be', async () => {
    const a = projects.a;
    await startServer(a);
    const events = [
      event(a, 'Read', { file_path: join(a, 'a.txt') }),
      event(a, 'Write', { file_path: join(a, 'new.txt'), content: 'x' }),
      event(a, 'Read', { file_path: join(a, 'secret', 'k') }),
      event(a, 'Read', { file_path: join(a, 'ask', 'q') }),
      event(a, 'Read', { file_path: join(home, '.ssh', 'id_rsa') }),
      event(a, 'Bash', { command: 'git status' }),
      event(a, 'Bash', { command: 'cat ~/.ssh/id_rsa | base64' }),
      event(a, 'Bash', { command: 'ls -la && cat a.txt > /tmp/copy.txt' }),
      event(a, 'Bash', { command: 'cd secret && cat k' }),
      event(a, 'Bash', { command: 'eval "$(echo cat ~/.ssh/id_rsa)"' }),
      event(a, 'Grep', { pattern: 'x', path: a }),
      '{"not": "a hook event"',
      '',
    ];
    for (const input of events) {
      const served = hook(a, input);
      expect(served.by, input).toMatch(/^served by \d+/);
      const own = hook(a, input, { TOOLGATE_HOOK_SERVER: 'off' });
      expect(own.by).toMatch(/^in-process/);
      expect(same(served), input).toBe(same(own));
    }
    // The decisions themselves, so that "the same" cannot mean "the same and wrong".
    expect(hook(a, events[0]!).stdout).toBe(''); // allowed: no decision, the host's own flow runs
    expect(JSON.parse(hook(a, events[2]!).stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    expect(JSON.parse(hook(a, events[3]!).stdout).hookSpecificOutput.permissionDecision).toBe('ask');
    expect(JSON.parse(hook(a, events[6]!).stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    expect(hook(a, events[11]!).code).toBe(2); // malformed event: blocking error
  });

  it("serves each call with its caller's project, environment and working directory", async () => {
    await startServer(projects.a);
    const write = (p: string) => event(p, 'Write', { file_path: join(p, 'w.txt'), content: 'x' });
    for (let i = 0; i < 2; i++) {
      const a = hook(projects.a, write(projects.a));
      const b = hook(projects.b, write(projects.b));
      expect(a.by).toMatch(/^served/);
      expect(b.by).toMatch(/^served/);
      expect(a.stdout).toBe('');
      expect(JSON.parse(b.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    }
    // A relative path in a Bash command resolves against the caller's cwd, not the server's.
    const rel = event(projects.a, 'Bash', { command: 'cat secret/k' });
    expect(JSON.parse(hook(projects.a, rel).stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    // An environment variable of the caller (here: HOME, with the same cache directory and so the same
    // server) is the one the call sees: `~` and the policy's `~/.ssh/**` are that home's.
    const otherHome = join(root, 'other-home');
    mkdirSync(join(otherHome, '.ssh'), { recursive: true });
    const ssh = event(projects.a, 'Bash', { command: 'cat ~/.ssh/id_rsa' });
    for (const h of [home, otherHome, home]) {
      const r = hook(projects.a, ssh, { HOME: h });
      expect(r.by).toMatch(/^served/);
      const out = JSON.parse(r.stdout).hookSpecificOutput;
      expect(out.permissionDecision).toBe('deny');
      expect(out.permissionDecisionReason).toContain(join(h, '.ssh', 'id_rsa'));
    }
  });

  it('eight parallel calls (parallel tool calls) are each answered with their own decision', async () => {
    const a = projects.a;
    await startServer(a);
    const run = (input: string) =>
      new Promise<{ out: string; code: number | null }>((resolve) => {
        const child = spawn(process.execPath, [BIN, 'hook', 'claude-code'], {
          cwd: a,
          env: hookEnv(a, { TOOLGATE_HOOK_TRACE: undefined }),
        });
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
        });
        child.on('close', (code) => resolve({ out, code }));
        child.stdin.end(input);
      });
    const inputs = Array.from({ length: 8 }, (_, i) =>
      event(a, 'Read', { file_path: i % 2 ? join(a, 'secret', `k${i}`) : join(a, `f${i}.txt`) }),
    );
    const answers = await Promise.all(inputs.map(run));
    answers.forEach((r, i) => {
      expect(r.code).toBe(0);
      if (i % 2) {
        const out = JSON.parse(r.out).hookSpecificOutput;
        expect(out.permissionDecision).toBe('deny');
        expect(out.permissionDecisionReason).toContain(`k${i}`);
      } else expect(r.out).toBe('');
    });
  });

  it('an edit of the policy and a symlink changed between two served calls are seen by the next call', async () => {
    const a = projects.a;
    await startServer(a);
    const read = event(a, 'Read', { file_path: join(a, 'link', 'id_rsa') });
    symlinkSync(join(a, 'secret'), join(a, 'link'));
    expect(JSON.parse(hook(a, read).stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    unlinkSync(join(a, 'link'));
    mkdirSync(join(a, 'link'));
    const served = hook(a, read);
    expect(served.by).toMatch(/^served/);
    expect(served.stdout).toBe('');
    rmSync(join(a, 'link'), { recursive: true });
    symlinkSync(join(home, '.ssh'), join(a, 'link'));
    expect(JSON.parse(hook(a, read).stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    rmSync(join(a, 'link'));

    const note = event(a, 'Write', { file_path: join(a, 'notes.txt'), content: 'x' });
    expect(hook(a, note).stdout).toBe('');
    writeFileSync(
      join(a, 'toolgate.yaml'),
      `${POLICY_A}  - { pattern: "<workspace>/notes.txt", access: deny }\n`,
    );
    const after = hook(a, note);
    expect(after.by).toMatch(/^served/);
    expect(JSON.parse(after.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    writeFileSync(join(a, 'toolgate.yaml'), POLICY_A);
  });

  it('a killed server: the call is answered in its own process, and a new server takes over', async () => {
    const a = projects.a;
    const first = await startServer(a);
    process.kill(first, 'SIGKILL');
    await waitFor(() => gone(first));
    const denied = event(a, 'Read', { file_path: join(a, 'secret', 'k') });
    const answer = hook(a, denied);
    expect(answer.by).toMatch(/^in-process: no server running/);
    expect(JSON.parse(answer.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    expect(await waitFor(() => serverPid() !== undefined && serverPid() !== first)).toBe(true);
    const next = hook(a, denied);
    expect(next.by).toMatch(/^served/);
    expect(same(next)).toBe(same(answer));
  });

  it('a server.pid left behind whose pid now names another live process is not waited on', async () => {
    const a = projects.a;
    await startServer(a);
    stopServer();
    await waitFor(() => serverPid() === undefined);
    // This test process is alive: only the file's age (no heartbeat) tells it is not a server.
    const pidFile = join(spool(), 'server.pid');
    writeFileSync(pidFile, `${process.pid}\n`);
    const old = new Date(Date.now() - 60_000);
    utimesSync(pidFile, old, old);
    const started = Date.now();
    const r = hook(a, event(a, 'Read', { file_path: join(a, 'secret', 'k') }));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(r.by).toBe('in-process: no server running');
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    expect(await waitFor(() => serverPid() !== undefined && serverPid() !== process.pid)).toBe(true);
  });

  it('a server that dies while answering: the caller answers itself, never allows by default', async () => {
    const a = projects.a;
    const pid = await startServer(a);
    // A request the server takes and then dies on: SIGSTOP it, let the client write its request, kill it.
    process.kill(pid, 'SIGSTOP');
    const input = event(a, 'Read', { file_path: join(home, '.ssh', 'id_rsa') });
    const child = spawn(process.execPath, [BIN, 'hook', 'claude-code'], {
      cwd: a,
      env: hookEnv(a),
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stdin.end(input);
    // The client connects (the kernel queues the connection for the stopped server) and waits for the nonce.
    await new Promise((resolve) => setTimeout(resolve, 500));
    process.kill(pid, 'SIGKILL');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(JSON.parse(stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    expect(lastTrace()).toMatch(/^in-process: the server did not answer/);
  });

  it('stdin that is still open: the call is answered in its own process, which times out and denies', async () => {
    const a = projects.a;
    await startServer(a);
    const child = spawn(process.execPath, [BIN, 'hook', 'claude-code'], {
      cwd: a,
      env: hookEnv(a, { TOOLGATE_HOOK_STDIN_TIMEOUT_MS: '600' }),
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdin.write(event(a, 'Read', { file_path: join(a, 'a.txt') }).slice(0, 20)); // never ended
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.stdin.destroy();
    expect(code).toBe(2);
    expect(stderr).toMatch(/no complete hook event on stdin within 600 ms/);
    expect(lastTrace()).toMatch(/^in-process: stdin still open/);
  });

  it('a spool directory others can enter is never used', async () => {
    const a = projects.a;
    await startServer(a);
    chmodSync(spool(), 0o755);
    try {
      const r = hook(a, event(a, 'Read', { file_path: join(a, 'secret', 'k') }));
      expect(r.by).toMatch(/^in-process/);
      expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
      // `toolgate run` neither: its request (the whole environment) is never written there.
      const run = spawnSync(
        process.execPath,
        [BIN, 'run', '--policy', join(a, 'toolgate.yaml'), '--print', '--', 'true'],
        { cwd: a, env: hookEnv(a), encoding: 'utf8' },
      );
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/^bwrap .* -- true\n$/);
      expect(lastTrace()).toBe("run in-process: the spool is not this user's alone");
      expect(readdirSync(spool()).filter((n) => n.includes('req-'))).toEqual([]);
    } finally {
      chmodSync(spool(), 0o700);
    }
  });

  it('--approvals (a terminal may be asked) and TOOLGATE_HOOK_SERVER=off answer in process', async () => {
    const a = projects.a;
    await startServer(a);
    const input = event(a, 'Read', { file_path: join(a, 'a.txt') });
    spawnSync(process.execPath, [BIN, 'hook', 'claude-code', '--approvals', 'auto-deny'], {
      cwd: a,
      env: hookEnv(a),
      input,
    });
    expect(lastTrace()).toBe('in-process: --approvals');
    hook(a, input, { TOOLGATE_HOOK_SERVER: 'off' });
    expect(lastTrace()).toBe('in-process: no server for this environment');
  });

  it('a policy with a third-party plugin is served once, then the server exits (its module stays loaded)', async () => {
    const c = join(root, 'c');
    const pkg = join(c, 'node_modules', 'acme-no-txt');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'acme-no-txt', main: 'index.js' }));
    writeFileSync(
      join(pkg, 'index.js'),
      `exports.noTxt = () => ({ name: 'no-txt', apply(hooks) {
         hooks.beforeToolCall.tap('no-txt', (call) =>
           String(call.args.path ?? '').endsWith('.txt') ? { action: 'deny', code: 'PATH_DENIED', reason: 'no .txt (acme)' } : undefined);
       } });`,
    );
    writeFileSync(
      join(c, 'toolgate.yaml'),
      `${POLICY_A}plugins:\n  - { package: "acme-no-txt", export: noTxt }\n`,
    );
    const pid = await startServer(projects.a);
    const r = hook(c, event(c, 'Write', { file_path: join(c, 'x.txt'), content: 'x' }));
    expect(r.by).toMatch(/^served/);
    expect(r.stdout).toContain('no .txt (acme)');
    expect(await waitFor(() => gone(pid))).toBe(true);
  });

  it('the server exits when its spool directory is removed', async () => {
    const pid = await startServer(projects.a);
    rmSync(spool(), { recursive: true, force: true });
    expect(await waitFor(() => gone(pid), 8_000)).toBe(true);
  });
});
