import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CompiledPolicy, loadPolicy } from '@toolgate/folder-rules';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileMounts, daemonSockets, probeSandbox, sandbox } from '../src/index.js';
import { runAsync } from './networkHelpers.js';

// A root daemon's socket (docker, podman, containerd, snapd…) stays connectable on a read-only mount: a
// sandboxed command could ask dockerd for a privileged container with `/` mounted and escape every mask. The
// sandbox masks those sockets unless the policy lets it write to that very socket. No dockerd here: a real
// unix server stands in, at the path DOCKER_HOST names (the same code path as /run/docker.sock), and counts
// the connections it gets.

let root: string;
let ws: string;
let sock: string;
let server: Server;
let connections = 0;
const haveBwrap = probeSandbox().ok;

function policy(extra: string[]): CompiledPolicy {
  const file = join(root, `p${extra.length}.yaml`);
  writeFileSync(
    file,
    ['default: read', 'rules:', '  - { pattern: "<workspace>/**", access: write }', ...extra, ''].join('\n'),
  );
  return loadPolicy({ dialect: 'toolgate', file });
}

const ctx = () => ({
  cwd: ws,
  workspace: ws,
  home: root,
  env: { ...process.env, DOCKER_HOST: `unix://${sock}` },
});
const CONNECT = (path: string) => [
  '/usr/bin/python3',
  '-c',
  `import socket,sys\ns=socket.socket(socket.AF_UNIX)\ntry:\n  s.connect(${JSON.stringify(path)}); s.sendall(b"GET /containers/json HTTP/1.0\\r\\n\\r\\n"); print("connected")\nexcept OSError as e:\n  print("refused", e.errno)`,
];

beforeAll(async () => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-daemon-')));
  ws = join(root, 'ws');
  mkdirSync(ws);
  mkdirSync(join(root, 'run'));
  sock = join(root, 'run', 'docker.sock');
  server = createServer((c) => {
    connections++;
    c.end();
  });
  await new Promise<void>((r) => server.listen(sock, r));
});
afterAll(() => {
  server?.close();
  rmSync(root, { recursive: true, force: true });
});

describe("a root daemon's socket", () => {
  it('is among the sockets the sandbox masks (DOCKER_HOST, CONTAINER_HOST, the usual paths)', () => {
    const list = daemonSockets({
      home: '/home/u',
      env: {
        DOCKER_HOST: 'unix:///srv/d.sock',
        CONTAINER_HOST: 'unix:///srv/p.sock',
        XDG_RUNTIME_DIR: '/run/user/7',
      },
    });
    expect(list).toEqual(
      expect.arrayContaining([
        '/run/docker.sock',
        '/var/run/docker.sock',
        '/run/user/7/docker.sock',
        '/home/u/.docker/run/docker.sock',
        '/run/podman/podman.sock',
        '/srv/d.sock',
        '/srv/p.sock',
      ]),
    );
    expect(daemonSockets({ home: '/h', env: { DOCKER_HOST: 'tcp://10.0.0.1:2375' } })).not.toContain(
      'tcp://10.0.0.1:2375',
    );
  });

  it('attack: the sandboxed command cannot connect to it (masked), and the daemon sees nothing', async () => {
    expect(haveBwrap).toBe(true);
    const p = policy([]);
    expect(compileMounts(p, ctx()).ops).toContainEqual(
      expect.objectContaining({ kind: 'mask-file', path: sock }),
    );
    connections = 0;
    const argv = sandbox({ policy: p, mode: 'always' }).prefix(ctx());
    const r = await runAsync([...argv, ...CONNECT(sock)]);
    expect(r.stdout).toMatch(/^refused/);
    expect(connections).toBe(0);
  });

  it('twin: a policy that lets the sandbox write to that socket keeps it reachable', async () => {
    const p = policy([`  - { pattern: "${sock}", access: write }`]);
    connections = 0;
    const argv = sandbox({ policy: p, mode: 'always' }).prefix(ctx());
    const r = await runAsync([...argv, ...CONNECT(sock)]);
    expect(r.stdout).toBe('connected\n');
    expect(connections).toBe(1);
  });
});
