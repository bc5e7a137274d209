import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CallContext } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractAccesses } from '../../src/index.js';

/**
 * Reality is the oracle (issue 26): real curl, wget, git, ssh and bash run under `strace -f -e trace=connect`
 * against HTTP servers bound to distinct loopback addresses — 127.0.0.2 ("ok"), 127.0.0.3 ("evil"),
 * 127.0.0.4 (a proxy) — on one port. Every address the kernel saw the command connect to must be a certain
 * reach the model extracted; and every certain reach to an IP address must be one the kernel saw, unless the
 * case says it is a target a proxy carried (curl then never connects to it itself).
 */

const IPS = ['127.0.0.2', '127.0.0.3', '127.0.0.4'] as const;
const root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-reach-oracle-')));
const servers: Server[] = [];
let port = 0;

async function listen(ip: string, p: number): Promise<Server> {
  const s = createServer((req, res) => {
    // Answers everything: a plain request, a proxied one (`GET http://…`), git's info/refs (404 is fine).
    res.statusCode = req.url?.includes('info/refs') ? 404 : 200;
    res.end('ok\n');
  });
  s.on('connect', (_req, socket) => socket.end('HTTP/1.1 403 Forbidden\r\n\r\n'));
  await new Promise<void>((ok, fail) => {
    s.once('error', fail);
    s.listen(p, ip, () => ok());
  });
  return s;
}

beforeAll(async () => {
  for (let attempt = 0; attempt < 20 && servers.length < IPS.length; attempt++) {
    for (const s of servers.splice(0)) s.close();
    try {
      const first = await listen(IPS[0], 0);
      servers.push(first);
      port = (first.address() as AddressInfo).port;
      for (const ip of IPS.slice(1)) servers.push(await listen(ip, port));
    } catch {
      // the port was taken on another address: try another one
    }
  }
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((ok) => s.close(ok))));
  rmSync(root, { recursive: true, force: true });
});

interface Case {
  name: string;
  cmd: string;
  files?: Record<string, string>;
  env?: Record<string, string>;
  /** The addresses the kernel must see (`ip:port`, `@P@` the servers' port): proves the case is real. */
  kernel: string[];
  /** Certain reaches that no socket goes to: targets a proxy carries. */
  viaProxy?: string[];
  /** The model reports the reach as uncertain (clients disagree on the host): the kernel still shows the case is real. */
  uncertain?: boolean;
}

const GIT_REPO = {
  '.git/HEAD': 'ref: refs/heads/main\n',
  '.git/objects/.keep': '',
  '.git/refs/heads/.keep': '',
};

const CASES: Case[] = [
  { name: 'curl: a plain URL', cmd: 'curl -s http://127.0.0.2:@P@/', kernel: ['127.0.0.2:@P@'] },
  {
    name: 'curl: userinfo ok.com@ reaches the host after it',
    cmd: 'curl -s http://127.0.0.2@127.0.0.3:@P@/',
    kernel: ['127.0.0.3:@P@'],
  },
  { name: 'curl: a decimal IPv4 address', cmd: 'curl -s http://2130706435:@P@/', kernel: ['127.0.0.3:@P@'] },
  {
    name: 'curl: a backslash before @ is userinfo for curl, a path for a WHATWG parser: uncertain',
    cmd: "curl -s 'http://127.0.0.3\\@127.0.0.2:@P@/'",
    kernel: ['127.0.0.2:@P@'],
    uncertain: true,
  },
  {
    name: 'twin: #@ ends the authority',
    cmd: "curl -s 'http://127.0.0.3:@P@#@127.0.0.2:@P@/'",
    kernel: ['127.0.0.3:@P@'],
  },
  {
    name: 'curl: octal and short IPv4 forms',
    cmd: 'curl -s http://0177.0.0.3:@P@/ http://127.2:@P@/',
    kernel: ['127.0.0.2:@P@', '127.0.0.3:@P@'],
  },
  {
    name: 'curl: a URL glob in the host',
    cmd: 'curl -s "http://127.0.0.{2,3}:@P@/"',
    kernel: ['127.0.0.2:@P@', '127.0.0.3:@P@'],
  },
  {
    name: 'curl -x: the socket goes to the proxy',
    cmd: 'curl -s -x 127.0.0.4:@P@ http://127.0.0.2:@P@/',
    kernel: ['127.0.0.4:@P@'],
    viaProxy: ['127.0.0.2:@P@'],
  },
  {
    name: 'curl: ALL_PROXY',
    cmd: 'ALL_PROXY=http://127.0.0.4:@P@ curl -s http://127.0.0.2:@P@/',
    kernel: ['127.0.0.4:@P@'],
    viaProxy: ['127.0.0.2:@P@'],
  },
  {
    name: 'curl: http_proxy from the environment',
    cmd: 'curl -s http://127.0.0.2:@P@/',
    env: { http_proxy: 'http://127.0.0.4:@P@' },
    kernel: ['127.0.0.4:@P@'],
    viaProxy: ['127.0.0.2:@P@'],
  },
  {
    name: 'twin: curl ignores HTTP_PROXY (upper case) for http',
    cmd: 'curl -s http://127.0.0.2:@P@/',
    env: { HTTP_PROXY: 'http://127.0.0.4:@P@' },
    kernel: ['127.0.0.2:@P@'],
  },
  {
    name: 'curl --resolve: the name is pinned to another address',
    cmd: 'curl -s --resolve ok.example:@P@:127.0.0.3 http://ok.example:@P@/',
    kernel: ['127.0.0.3:@P@'],
  },
  {
    name: 'curl --connect-to',
    cmd: 'curl -s --connect-to ::127.0.0.3:@P@ http://127.0.0.2:@P@/',
    kernel: ['127.0.0.3:@P@'],
    viaProxy: ['127.0.0.2:@P@'],
  },
  {
    name: 'curl: ~/.curlrc url =',
    cmd: 'curl -s',
    files: { '.curlrc': 'url = "http://127.0.0.3:@P@/"\n' },
    kernel: ['127.0.0.3:@P@'],
  },
  {
    name: 'curl: ~/.curlrc proxy =',
    cmd: 'curl -s http://127.0.0.2:@P@/',
    files: { '.curlrc': 'proxy = 127.0.0.4:@P@\n' },
    kernel: ['127.0.0.4:@P@'],
    viaProxy: ['127.0.0.2:@P@'],
  },
  { name: 'wget: a plain URL', cmd: 'wget -q -O /dev/null http://127.0.0.2:@P@/', kernel: ['127.0.0.2:@P@'] },
  {
    name: 'wget -e http_proxy',
    cmd: 'wget -q -O /dev/null -e use_proxy=on -e http_proxy=http://127.0.0.4:@P@/ http://127.0.0.2:@P@/',
    kernel: ['127.0.0.4:@P@'],
    viaProxy: ['127.0.0.2:@P@'],
  },
  {
    name: 'wget: http_proxy from the environment',
    cmd: 'wget -q -O /dev/null http://127.0.0.2:@P@/',
    env: { http_proxy: 'http://127.0.0.4:@P@/' },
    kernel: ['127.0.0.4:@P@'],
    viaProxy: ['127.0.0.2:@P@'],
  },
  {
    name: 'git ls-remote: a URL',
    cmd: 'git ls-remote http://127.0.0.2:@P@/r.git',
    kernel: ['127.0.0.2:@P@'],
  },
  {
    name: 'git -c url.X.insteadOf: the rewritten host',
    cmd: 'git -c url.http://127.0.0.3:@P@/.insteadOf=http://127.0.0.2:@P@/ ls-remote http://127.0.0.2:@P@/r.git',
    kernel: ['127.0.0.3:@P@'],
  },
  {
    name: 'git fetch: the remote and insteadOf of a real repository .git/config',
    cmd: 'git fetch -q',
    files: {
      ...GIT_REPO,
      '.git/config':
        '[core]\n\trepositoryformatversion = 0\n[remote "origin"]\n\turl = http://127.0.0.2:@P@/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[url "http://127.0.0.3:@P@/"]\n\tinsteadOf = http://127.0.0.2:@P@/\n',
    },
    kernel: ['127.0.0.3:@P@'],
  },
  {
    name: 'git: insteadOf in ~/.gitconfig',
    cmd: 'git ls-remote mirror:r.git',
    files: { '.gitconfig': '[url "http://127.0.0.3:@P@/"]\n\tinsteadOf = mirror:\n' },
    kernel: ['127.0.0.3:@P@'],
  },
  {
    name: 'git -c http.proxy',
    cmd: 'git -c http.proxy=http://127.0.0.4:@P@ ls-remote http://127.0.0.2:@P@/r.git',
    kernel: ['127.0.0.4:@P@'],
    viaProxy: ['127.0.0.2:@P@'],
  },
  {
    name: 'git push: the pushurl of .git/config, not the url',
    cmd: 'git -c user.name=a -c user.email=a@b.c commit -q --allow-empty -m x && git push -q origin HEAD:refs/heads/x',
    files: {
      ...GIT_REPO,
      '.git/config':
        '[remote "origin"]\n\turl = http://127.0.0.2:@P@/r.git\n\tpushurl = http://127.0.0.3:@P@/r.git\n',
    },
    kernel: ['127.0.0.3:@P@'],
  },
  {
    name: 'git push after a checkout on the same line: the remote of the branch switched to (uncertain)',
    cmd: 'git -c user.name=a -c user.email=a@b.c commit -q --allow-empty -m x && git branch other && git checkout -q other && git push -q',
    files: {
      ...GIT_REPO,
      '.git/config':
        '[remote "origin"]\n\turl = http://127.0.0.2:@P@/r.git\n[remote "evil"]\n\turl = http://127.0.0.3:@P@/r.git\n[branch "other"]\n\tremote = evil\n\tmerge = refs/heads/other\n',
    },
    kernel: ['127.0.0.3:@P@'],
    uncertain: true,
  },
  {
    name: 'twin: checkout -b then push naming the remote: that remote, certain',
    cmd: 'git -c user.name=a -c user.email=a@b.c commit -q --allow-empty -m x && git checkout -q -b z && git push -q -u origin z',
    files: {
      ...GIT_REPO,
      '.git/config':
        '[remote "origin"]\n\turl = http://127.0.0.2:@P@/r.git\n[remote "evil"]\n\turl = http://127.0.0.3:@P@/r.git\n',
    },
    kernel: ['127.0.0.2:@P@'],
  },
  {
    name: 'wget: a WGETRC file with http_proxy',
    cmd: 'WGETRC=./w.rc wget -q -O /dev/null http://127.0.0.2:@P@/',
    files: { 'w.rc': 'http_proxy = http://127.0.0.4:@P@/\n' },
    kernel: ['127.0.0.4:@P@'],
    viaProxy: ['127.0.0.2:@P@'],
  },
  {
    name: 'npm view --registry',
    cmd: 'npm view --registry http://127.0.0.3:@P@/ left-pad version',
    kernel: ['127.0.0.3:@P@'],
  },
  {
    name: 'npm: the registry of a project .npmrc',
    cmd: 'npm view left-pad version',
    files: { '.npmrc': 'registry=http://127.0.0.3:@P@/\n', 'package.json': '{}' },
    kernel: ['127.0.0.3:@P@'],
  },
  {
    name: 'pip download --index-url',
    cmd: 'pip download -q --no-deps -d ./w --index-url http://127.0.0.3:@P@/simple left-pad-x',
    kernel: ['127.0.0.3:@P@'],
  },
  {
    name: 'git -c http.curloptResolve: the pinned address',
    cmd: 'git -c http.curloptResolve=ok.example:@P@:127.0.0.3 ls-remote http://ok.example:@P@/r.git',
    kernel: ['127.0.0.3:@P@'],
  },
  {
    name: 'ssh: -p after the destination',
    cmd: 'ssh -F none -o BatchMode=yes -o StrictHostKeyChecking=no 127.0.0.2 -p @P@ true',
    kernel: ['127.0.0.2:@P@'],
  },
  {
    name: 'pip: http_proxy from the environment (requests)',
    cmd: 'pip download -q --no-deps -d ./w --index-url http://127.0.0.2:@P@/simple left-pad-x',
    env: { http_proxy: 'http://127.0.0.4:@P@' },
    kernel: ['127.0.0.4:@P@'],
    viaProxy: ['127.0.0.2:@P@'],
  },
  {
    name: 'npm: HTTP_PROXY from the environment',
    cmd: 'npm view --registry http://127.0.0.2:@P@/ left-pad version',
    env: { HTTP_PROXY: 'http://127.0.0.4:@P@' },
    kernel: ['127.0.0.4:@P@'],
    viaProxy: ['127.0.0.2:@P@'],
  },
  {
    name: 'bash /dev/tcp',
    cmd: 'exec 3<>/dev/tcp/127.0.0.3/@P@; printf "GET / HTTP/1.0\\r\\n\\r\\n" >&3; cat <&3 >/dev/null',
    kernel: ['127.0.0.3:@P@'],
  },
  {
    name: 'ssh -p: the port',
    cmd: 'ssh -F none -o BatchMode=yes -o StrictHostKeyChecking=no -o ConnectTimeout=3 -p @P@ 127.0.0.3 true',
    kernel: ['127.0.0.3:@P@'],
  },
];

function fill(s: string): string {
  return s.replaceAll('@P@', String(port));
}

/** `connect(…, {sa_family=AF_INET, sin_port=htons(P), sin_addr=inet_addr("A")}, …)` of every process. */
function connects(log: string): Set<string> {
  const out = new Set<string>();
  for (const m of log.matchAll(/sin_port=htons\((\d+)\), sin_addr=inet_addr\("([\d.]+)"\)/g)) {
    if (m[1] === '53' || m[1] === '0') continue; // DNS, and the UDP probes of the resolver
    out.add(`${m[2]}:${m[1]}`);
  }
  return out;
}

async function traced(cmd: string, cwd: string, env: Record<string, string>): Promise<Set<string>> {
  const log = join(cwd, '..', `${cwd.split('/').pop()}.strace`);
  await new Promise<void>((done) => {
    const child = spawn('strace', ['-f', '-qq', '-o', log, '-e', 'trace=connect', 'bash', '-c', cmd], {
      cwd,
      env,
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('close', () => {
      clearTimeout(timer);
      done();
    });
  });
  return connects(readFileSync(log, 'utf8'));
}

describe('where commands connect, checked by the kernel (strace -e trace=connect)', () => {
  it('has strace, curl, wget, git, ssh, npm and pip, and three loopback servers on one port', () => {
    for (const tool of ['strace', 'curl', 'wget', 'git', 'ssh', 'npm', 'pip'])
      expect(spawnSync('sh', ['-c', `command -v ${tool}`]).status, `${tool} is not installed`).toBe(0);
    expect(servers.length).toBe(IPS.length);
  });

  CASES.forEach((c, k) => {
    it(c.name, async () => {
      const dir = join(root, String(k));
      mkdirSync(dir, { recursive: true });
      for (const [p, text] of Object.entries(c.files ?? {})) {
        mkdirSync(dirname(join(dir, p)), { recursive: true });
        writeFileSync(join(dir, p), fill(text));
      }
      const env: Record<string, string> = {
        PATH: '/usr/bin:/bin',
        HOME: dir,
        LC_ALL: 'C',
        GIT_TERMINAL_PROMPT: '0',
      };
      for (const [name, v] of Object.entries(c.env ?? {})) env[name] = fill(v);
      const cmd = fill(c.cmd);
      const ctx: CallContext = { sessionId: 's', agentId: 'a', cwd: dir, workspace: dir, home: dir, env };
      const { network } = extractAccesses(cmd, ctx);
      const reached = new Set(network.filter((n) => n.certain).map((n) => `${n.host}:${n.port}`));
      const kernel = await traced(cmd, dir, env);
      expect([...kernel].sort(), `${cmd}: what the kernel saw`).toEqual(c.kernel.map(fill).sort());
      if (c.uncertain) {
        expect(
          network.some((n) => !n.certain),
          `${cmd}: the model reports an uncertain reach`,
        ).toBe(true);
        return;
      }
      for (const a of kernel) expect(reached, `${cmd}: the model misses ${a}`).toContain(a);
      const proxied = new Set((c.viaProxy ?? []).map(fill));
      for (const r of reached)
        if (/^\d+\.\d+\.\d+\.\d+:/.test(r) && !proxied.has(r))
          expect(kernel, `${cmd}: the model reports ${r}, which nothing connects to`).toContain(r);
    });
  });
});
