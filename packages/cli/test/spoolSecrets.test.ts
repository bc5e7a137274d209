import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from './support/cli.js';

// Issue 23, item 5 (no secrets at rest): `toolgate run` and hook calls hand their request — the caller's
// whole environment — to the warm hook server. Until now that was a file in ~/.cache/toolgate/hookd-*/,
// which sandboxed code of the same user polled and read. Here a sandboxed call polls the cache for another
// call's secret while many such calls are served, the test itself polls the spool from
// outside, and everything under the cache is scanned afterwards: the secret is never in a file. And the
// socket that replaced the files serves only this user's processes outside any sandbox.

let root: string;
let home: string;
let ws: string;
let policy: string;
let trace: string;
const SECRET = `tg-secret-${randomBytes(12).toString('hex')}`;
/** A spool an earlier build left (the hand-over through files). */
const OLDER = 'hookd-0123abcd';
const haveBwrap = spawnSync('bwrap', ['--version']).status === 0;

// Never skipped: a machine without the tools fails here (scripts/ensure-test-tools.sh installs them).
it('bubblewrap is installed', () => expect(haveBwrap).toBe(true));

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    TOOLGATE_HOOK_TRACE: trace,
    ...extra,
  };
}

function cacheDir(): string {
  return join(home, '.cache', 'toolgate');
}

function spool(): string {
  const name = existsSync(cacheDir())
    ? readdirSync(cacheDir()).find((n) => n.startsWith('hookd-') && n !== OLDER)
    : undefined;
  return name === undefined ? '' : join(cacheDir(), name);
}

/** Whether a server listens on the spool's socket now (a bound socket is listed in /proc/net/unix). */
function listening(): boolean {
  return spool() !== '' && readFileSync('/proc/net/unix', 'utf8').includes(` ${join(spool(), 'sock')}\n`);
}

async function waitFor(check: () => boolean, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

/** Every regular file under `dir` (links not followed) whose bytes contain `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names) {
      const p = join(d, name);
      let st: ReturnType<typeof statSync>;
      try {
        st = statSync(p, { throwIfNoEntry: false }) as ReturnType<typeof statSync>;
      } catch {
        continue;
      }
      if (!st) continue;
      if (st.isDirectory()) walk(p);
      else if (st.isFile())
        try {
          if (readFileSync(p).includes(needle)) found.push(p);
        } catch {
          /* removed meanwhile */
        }
    }
  };
  walk(dir);
  return found;
}

function run(command: string[], extra: Record<string, string> = {}) {
  return spawnSync(process.execPath, [BIN, 'run', '--policy', policy, '--', ...command], {
    cwd: ws,
    env: env(extra),
    encoding: 'utf8',
    timeout: 30_000,
  });
}

beforeAll(async () => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-spool-secrets-')));
  home = join(root, 'home');
  ws = join(root, 'ws');
  trace = join(root, 'trace.log');
  mkdirSync(home, { recursive: true });
  mkdirSync(ws, { recursive: true });
  policy = join(ws, 'toolgate.yaml');
  // Everything readable (the cache included), the workspace writable: the attacker's best case.
  writeFileSync(
    policy,
    ['default: read', 'rules:', '  - { pattern: "<workspace>/**", access: write }', ''].join('\n'),
  );
  if (!haveBwrap) return;
  // What an earlier build's spool may hold: request files (environments) its server never took.
  const older = join(home, '.cache', 'toolgate', OLDER);
  mkdirSync(older, { recursive: true, mode: 0o700 });
  for (const name of ['req-1-old', '.req-2-old', 'work-3-old', 'req-4-new']) {
    writeFileSync(join(older, name), '{"env":{"TG_API_KEY":"from an earlier build"}}\n');
    if (name.endsWith('-old'))
      utimesSync(join(older, name), new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
  }
  expect(run(['true']).status).toBe(0); // starts the server
  expect(await waitFor(listening)).toBe(true);
});

afterAll(() => {
  try {
    const pid = Number.parseInt(readFileSync(join(spool(), 'server.pid'), 'utf8'), 10);
    process.kill(pid, 'SIGKILL');
  } catch {
    /* none */
  }
  rmSync(root, { recursive: true, force: true });
});

describe('no secrets at rest: the hand-over to the hook server', () => {
  it("a sandboxed call polling the cache never finds another call's environment, and no file holds it", async () => {
    // The poller is given the secret in two halves (its own request carries its argv): only the other
    // calls' environment holds it whole.
    const half = SECRET.length >> 1;
    writeFileSync(join(ws, 'planted'), `TG_API_KEY=${SECRET}\n`);
    const script = `end=$(($(date +%s) + 3)); n=0
      while [ "$(date +%s)" -lt "$end" ]; do
        n=$((n+1))
        if grep -rlsF -- "$1$2" "$HOME/.cache" 2>/dev/null | grep -q .; then echo FOUND; fi
      done; echo "polls $n"
      grep -qF -- "$1$2" planted && echo "the twin: a file that holds it is found"`;
    const poller = spawn(
      process.execPath,
      [
        BIN,
        'run',
        '--policy',
        policy,
        '--',
        '/bin/sh',
        '-c',
        script,
        'sh',
        SECRET.slice(0, half),
        SECRET.slice(half),
      ],
      { cwd: ws, env: env() },
    );
    let out = '';
    poller.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const pollerDone = new Promise<number | null>((resolve) => poller.on('exit', resolve));
    // Meanwhile: calls whose environment holds the secret, run through the server, and this process
    // scanning the spool from outside the sandbox after each.
    const seenOutside: string[] = [];
    const served = () =>
      readFileSync(trace, 'utf8')
        .split('\n')
        .filter((l) => / run served by \d+$/.test(l)).length;
    const before = served();
    const started = Date.now();
    let calls = 0;
    while (Date.now() - started < 3_000) {
      const batch = Array.from(
        { length: 4 },
        () =>
          new Promise<number | null>((resolve) => {
            const c = spawn(process.execPath, [BIN, 'run', '--policy', policy, '--', 'true'], {
              cwd: ws,
              env: env({ TG_API_KEY: SECRET }),
              stdio: 'ignore',
            });
            c.on('exit', resolve);
          }),
      );
      for (let i = 0; i < 5; i++) {
        seenOutside.push(...filesContaining(spool(), SECRET));
        await new Promise((r) => setTimeout(r, 2));
      }
      expect(await Promise.all(batch)).toEqual([0, 0, 0, 0]);
      calls += 4;
    }
    expect(await pollerDone).toBe(0);
    expect(out).toMatch(/polls [1-9]\d*/);
    expect(out).not.toContain('FOUND');
    expect(out).toContain('the twin: a file that holds it is found');
    expect(seenOutside).toEqual([]);
    // The calls were handed to the server (the hand-over this test is about), not answered in process.
    expect(served() - before).toBeGreaterThanOrEqual(calls - 2);
    // Scanned after: nothing under the cache (spool, compiled policies, code caches) holds it.
    expect(filesContaining(cacheDir(), SECRET)).toEqual([]);
  }, 30_000);

  it("a starting server removes the request files earlier builds' spools left (older than a minute)", () => {
    const older = join(cacheDir(), OLDER);
    // req-4-new is a minute from abandoned: a live server of that build may still take it.
    expect(readdirSync(older)).toEqual(['req-4-new']);
  });

  it('the spool holds the socket and server.pid only: 0700, the socket 0600, this user', () => {
    const dir = statSync(spool());
    expect(dir.mode & 0o777).toBe(0o700);
    expect(dir.uid).toBe(process.getuid?.());
    const sock = statSync(join(spool(), 'sock'));
    expect(sock.isSocket()).toBe(true);
    expect(sock.mode & 0o777).toBe(0o600);
    expect(readdirSync(spool()).sort()).toEqual(['server.pid', 'sock']);
  });

  // A client that speaks the protocol itself (node:net), as sandboxed code could if it reached the socket:
  // a request that asks the server to plan a run (which loads the policy outside any sandbox).
  const CLIENT = `
    const net = require('node:net');
    const [sock, policy, cwd] = process.argv.slice(1);
    const frame = (b) => { const h = Buffer.alloc(4); h.writeUInt32BE(b.length); return Buffer.concat([h, b]); };
    const s = net.connect(sock);
    let buf = Buffer.alloc(0); let nonce;
    s.on('error', (e) => { console.log(JSON.stringify({ error: e.code })); });
    s.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
        const body = buf.subarray(4, 4 + buf.readUInt32BE(0)); buf = buf.subarray(4 + body.length);
        if (nonce === undefined) {
          nonce = body.toString();
          process.title = nonce;
          const head = JSON.stringify({ v: 2, pid: process.pid, nonce, command: 'run',
            argv: ['--policy', policy, '--print', '--', 'true'], cwd, env: process.env, umask: 18 });
          s.write(frame(Buffer.from(head + '\\n')));
        } else { console.log(body.toString()); s.end(); }
      }
    });`;

  it('a process in a sandbox (other pid, user and mount namespaces) that reaches the socket is refused', () => {
    // bubblewrap with the socket visible (the CLI's own sandboxes hide the spool besides): only the
    // namespaces differ from the twin below.
    const r = spawnSync(
      'bwrap',
      [
        '--bind',
        '/',
        '/',
        '--dev',
        '/dev',
        '--proc',
        '/proc',
        '--unshare-all',
        '--share-net',
        '--unshare-user',
        '--die-with-parent',
        '--new-session',
        '--',
        process.execPath,
        '-e',
        CLIENT,
        join(spool(), 'sock'),
        policy,
        ws,
      ],
      { cwd: ws, env: env(), encoding: 'utf8', timeout: 20_000 },
    );
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ decline: 'the peer is not this user outside a sandbox' });
  });

  it('twin: the same client outside any sandbox is served', () => {
    const r = spawnSync(process.execPath, ['-e', CLIENT, join(spool(), 'sock'), policy, ws], {
      cwd: ws,
      env: env(),
      encoding: 'utf8',
      timeout: 20_000,
    });
    const reply = JSON.parse(r.stdout);
    expect(reply.exitCode).toBe(0);
    expect(reply.stdout).toMatch(/^bwrap .* -- true\n$/);
  });

  it('a client that does not prove its pid (another comm) is refused', () => {
    const liar = CLIENT.replace('process.title = nonce;', '');
    const r = spawnSync(process.execPath, ['-e', liar, join(spool(), 'sock'), policy, ws], {
      cwd: ws,
      env: env(),
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(JSON.parse(r.stdout)).toEqual({ decline: 'the peer is not this user outside a sandbox' });
  });
});
