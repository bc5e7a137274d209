import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { Access, CallContext } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractAccesses } from '../../src/index.js';

/**
 * Invariant 6 for the network family: every input that changes what curl, wget and ssh touch — config
 * files, environment variables, the programs' own name rules — as an attack and a twin that stays allowed,
 * each run for real under `strace -f` in a scratch tree against a local HTTP server on 127.0.0.1.
 *
 * The verdict stands in for a policy where the agent may write the workspace only, may read HOME, `OUT`
 * (standing for /etc) is denied, and so is any file named `.env` (the issue's `**\/.env`): `sandbox` when
 * an access is uncertain or a config file is one the agent could have written (a marker inside the
 * workspace), `deny` when an access touches OUT, writes HOME, names a `.env`, or writes names the server
 * picks (the policy's worst case beneath), else `allow`. Whatever the verdict short of `sandbox`, every file the kernel opened for writing
 * (and every directory it made) must be covered by a write the model reported.
 */

type Verdict = 'allow' | 'deny' | 'sandbox';

interface Case {
  name: string;
  /** Files to create first, by path under the scratch root (`home/.curlrc`, `ws/cfg`). */
  files?: Record<string, string>;
  cmd: string;
  env?: Record<string, string>;
  expect: Verdict;
  /** For attacks: a path (under the root) the real run must have written, proving the attack is real. */
  proves?: string;
  /** The program cannot be exercised here (ssh's askpass needs a server): judge the model only. */
  modelOnly?: boolean;
}

const root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-netin-')));
let server: Server;
let url = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path.startsWith('/cd')) res.setHeader('Content-Disposition', 'attachment; filename=".env"');
    res.setHeader('Content-Type', path.includes('.html') ? 'text/html' : 'text/plain');
    res.end(`body of ${path}\n`);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((ok) => server.close(ok));
  rmSync(root, { recursive: true, force: true });
});

const CASES: Case[] = [
  // curl: the default config file, found as curl finds it, unless -q/--disable comes first.
  {
    name: 'curl: ~/.curlrc output-dir sends -O into OUT',
    files: { 'home/.curlrc': 'output-dir = "@OUT@"\n' },
    cmd: 'curl -s -O @URL@/a.txt',
    expect: 'deny',
    proves: 'out/a.txt',
  },
  {
    name: 'twin: ~/.curlrc output-dir inside the workspace',
    files: { 'home/.curlrc': '# mine\noutput-dir: @WS@/dl\n--create-dirs\n' },
    cmd: 'curl -s -O @URL@/a.txt',
    expect: 'allow',
  },
  {
    name: 'curl: -q not first still reads ~/.curlrc',
    files: { 'home/.curlrc': 'output = @OUT@/o.txt\n' },
    cmd: 'curl -s -q @URL@/a.txt',
    expect: 'deny',
    proves: 'out/o.txt',
  },
  {
    name: 'twin: -q as the first argument (even clustered) skips ~/.curlrc',
    files: { 'home/.curlrc': 'output = @OUT@/o.txt\n' },
    cmd: 'curl -qs @URL@/a.txt -o a.txt',
    expect: 'allow',
  },
  {
    name: 'curl: CURL_HOME=. reads an agent-written ./.curlrc',
    files: { 'ws/.curlrc': 'output-dir = @OUT@\n' },
    cmd: 'CURL_HOME=. curl -s -O @URL@/a.txt',
    expect: 'sandbox',
    proves: 'out/a.txt',
  },
  {
    name: 'twin: CURL_HOME=. with no .curlrc there',
    cmd: 'CURL_HOME=. curl -s -O @URL@/a.txt',
    expect: 'allow',
  },
  {
    name: 'curl: $XDG_CONFIG_HOME/.curlrc',
    files: { 'home/xdg/.curlrc': 'output-dir = @OUT@\n' },
    env: { XDG_CONFIG_HOME: '@HOME@/xdg' },
    cmd: 'curl -s -O @URL@/a.txt',
    expect: 'deny',
    proves: 'out/a.txt',
  },
  {
    name: 'curl: ~/.config/curlrc when XDG_CONFIG_HOME is unset',
    files: { 'home/.config/curlrc': 'remote-name\noutput-dir @OUT@\n' },
    cmd: 'curl -s @URL@/a.txt',
    expect: 'deny',
    proves: 'out/a.txt',
  },
  {
    name: 'twin: --disable first skips ~/.config/curlrc',
    files: { 'home/.config/curlrc': 'remote-name\noutput-dir @OUT@\n' },
    cmd: 'curl --disable -s @URL@/a.txt -o a.txt',
    expect: 'allow',
  },
  {
    name: 'curl: -K FILE options are applied (output, url)',
    files: { 'home/k.cfg': 'url = "@URL@/k.txt"\noutput = "@OUT@/k.txt"\n' },
    cmd: 'curl -s -K @HOME@/k.cfg',
    // The -K file is also a data read (curl prints lines it cannot parse); the output lands in OUT.
    expect: 'deny',
    proves: 'out/k.txt',
  },
  {
    name: 'twin: -K FILE writing into the workspace',
    files: { 'home/k.cfg': 'url = "@URL@/k.txt"\noutput = "@WS@/k.txt"\nsilent\n' },
    cmd: 'curl -K @HOME@/k.cfg',
    expect: 'allow',
  },
  {
    name: 'curl: -K of an agent-written file',
    files: { 'ws/my.cfg': 'output = "@OUT@/k.txt"\n' },
    cmd: 'curl -s -K my.cfg @URL@/k.txt',
    expect: 'sandbox',
    proves: 'out/k.txt',
  },
  // curl's own name rules.
  {
    name: 'curl -O drops ?query and #fragment: the name is .env',
    cmd: "curl -s -O '@URL@/d/.env?download=1#top'",
    expect: 'deny',
    proves: 'ws/.env',
  },
  {
    name: 'twin: curl -O of a plain name with a query',
    cmd: "curl -s -O '@URL@/d/notes.txt?download=1#top'",
    expect: 'allow',
  },
  {
    name: 'curl -O takes the name after a backslash',
    cmd: "curl -s -O '@URL@/x\\.env'",
    expect: 'deny',
    proves: 'ws/.env',
  },
  {
    name: "curl's URL glob {a,.env} names two files",
    cmd: "curl -s -O '@URL@/{a,.env}'",
    expect: 'deny',
    proves: 'ws/.env',
  },
  {
    name: 'twin: -g turns the glob off (one literal name)',
    cmd: "curl -s -g -O '@URL@/{a,.env}'",
    expect: 'allow',
  },
  {
    name: 'curl -o with #1 from a [range] glob',
    cmd: "curl -s '@URL@/[a-b]' -o '@OUT@/#1'",
    expect: 'deny',
    proves: 'out/a',
  },
  {
    name: 'twin: -o with #1 and a {set} glob inside the workspace',
    cmd: "curl -s '@URL@/{x,y}.txt' -o 'f_#1.txt'",
    expect: 'allow',
  },
  {
    name: 'curl -J: the server names the file (.env)',
    cmd: 'curl -s -O -J @URL@/cd',
    expect: 'deny',
    proves: 'ws/.env',
  },
  {
    name: 'twin: the same URL without -J',
    cmd: 'curl -s -O @URL@/cd',
    expect: 'allow',
  },
  {
    name: 'curl --create-dirs --output-dir makes directories in OUT',
    cmd: 'curl -s --create-dirs --output-dir @OUT@/new/dir -O @URL@/a.txt',
    expect: 'deny',
    proves: 'out/new/dir/a.txt',
  },
  {
    name: 'twin: --create-dirs -o sub/dir/x in the workspace',
    cmd: 'curl -s --create-dirs -o sub/dir/x @URL@/a.txt',
    expect: 'allow',
  },
  {
    name: 'curl appends to $SSLKEYLOGFILE, whatever the URL',
    cmd: 'SSLKEYLOGFILE=@OUT@/keys curl -s @URL@/a.txt -o a.txt',
    expect: 'deny',
    proves: 'out/keys',
  },
  {
    name: 'twin: $SSLKEYLOGFILE in the workspace',
    cmd: 'SSLKEYLOGFILE=keys.log curl -s @URL@/a.txt -o a.txt',
    expect: 'allow',
  },
  // wget: its config files and variables.
  {
    name: 'wget: ~/.wgetrc dir_prefix',
    files: { 'home/.wgetrc': 'DIR-Prefix = @OUT@\n' },
    cmd: 'wget -q @URL@/a.txt',
    expect: 'deny',
    proves: 'out/a.txt',
  },
  {
    name: 'twin: --no-config skips ~/.wgetrc',
    files: { 'home/.wgetrc': 'dir_prefix = @OUT@\n' },
    cmd: 'wget -q --no-config @URL@/a.txt',
    expect: 'allow',
  },
  {
    name: 'wget: $WGETRC output_document',
    files: { 'home/w.rc': 'output_document = @OUT@/w\n' },
    env: { WGETRC: '@HOME@/w.rc' },
    cmd: 'wget -q @URL@/a.txt',
    expect: 'deny',
    proves: 'out/w',
  },
  {
    name: 'twin: $WGETRC output_document in the workspace',
    files: { 'home/w.rc': '# mine\noutput_document = @WS@/w\n' },
    env: { WGETRC: '@HOME@/w.rc' },
    cmd: 'wget -q @URL@/a.txt',
    expect: 'allow',
  },
  {
    name: 'wget: WGETRC=./w.rc, agent-written',
    files: { 'ws/w.rc': 'dir_prefix = @OUT@\n' },
    cmd: 'WGETRC=./w.rc wget -q @URL@/a.txt',
    expect: 'sandbox',
    proves: 'out/a.txt',
  },
  {
    name: 'wget: $SYSTEM_WGETRC replaces /etc/wgetrc when it exists',
    files: { 'home/sys.rc': 'dir_prefix = @OUT@\n' },
    env: { SYSTEM_WGETRC: '@HOME@/sys.rc' },
    cmd: 'wget -q @URL@/a.txt',
    expect: 'deny',
    proves: 'out/a.txt',
  },
  {
    name: 'twin: $SYSTEM_WGETRC that does not exist (/etc/wgetrc is read)',
    env: { SYSTEM_WGETRC: '@HOME@/none.rc' },
    cmd: 'wget -q @URL@/a.txt',
    expect: 'allow',
  },
  {
    name: 'wget --config=FILE alone is read',
    files: { 'home/c.rc': 'dir_prefix = @OUT@\n' },
    cmd: 'wget -q --config=@HOME@/c.rc @URL@/a.txt',
    expect: 'deny',
    proves: 'out/a.txt',
  },
  {
    name: 'twin: --no-config before --config reads nothing',
    files: { 'home/c.rc': 'dir_prefix = @OUT@\n' },
    cmd: 'wget -q --no-config --config=@HOME@/c.rc @URL@/a.txt',
    expect: 'allow',
  },
  {
    name: 'wget: -P on the command line beats the config file',
    files: { 'home/c.rc': 'dir_prefix = @WS@/ok\n' },
    cmd: 'wget -q -P @OUT@ --config=@HOME@/c.rc @URL@/a.txt',
    expect: 'deny',
    proves: 'out/a.txt',
  },
  // wget's own name rules.
  {
    name: 'wget --default-page names a URL ending in /',
    cmd: 'wget -q --default-page=.env @URL@/',
    expect: 'deny',
    proves: 'ws/.env',
  },
  {
    name: 'twin: a URL ending in / is index.html',
    cmd: 'wget -q @URL@/',
    expect: 'allow',
  },
  {
    name: 'wget --content-disposition: the server names the file (.env)',
    cmd: 'wget -q --content-disposition @URL@/cd',
    expect: 'deny',
    proves: 'ws/.env',
  },
  {
    name: 'twin: the same URL named by its path',
    cmd: 'wget -q @URL@/cd',
    expect: 'allow',
  },
  {
    name: 'wget -e dir_prefix=… as a wgetrc command',
    cmd: 'wget -q -e dir_prefix=@OUT@ @URL@/a.txt',
    expect: 'deny',
    proves: 'out/a.txt',
  },
  {
    name: 'twin: wget keeps ?query in the name',
    cmd: "wget -q '@URL@/a.txt?x=1#frag'",
    expect: 'allow',
  },
  {
    name: 'twin: wget -x makes host:port and path directories',
    cmd: 'wget -q -x @URL@/d1/d2/a.txt',
    expect: 'allow',
  },
  {
    name: 'twin: wget -x -nH --cut-dirs=1',
    cmd: 'wget -q -x -nH --cut-dirs=1 @URL@/d1/d2/a.txt',
    expect: 'allow',
  },
  {
    name: 'twin: wget -E appends .html',
    cmd: 'wget -q -E @URL@/page.html.x',
    expect: 'allow',
  },
  {
    name: 'wget -r: names from the server beneath the prefix',
    cmd: 'wget -q -r -l1 @URL@/d/x.html',
    expect: 'deny',
  },
  {
    name: 'twin: wget -O - writes no file',
    cmd: 'wget -q -O - @URL@/d/x.html',
    expect: 'allow',
  },
  // ssh: config files are code (ProxyCommand); the agent's are not trusted.
  {
    name: 'ssh -F with an agent-written ProxyCommand',
    files: { 'ws/ssh.cfg': 'Host *\n  ProxyCommand sh -c "echo pwned > @OUT@/p"\n' },
    cmd: 'ssh -F ssh.cfg -o BatchMode=yes example.invalid',
    expect: 'sandbox',
    proves: 'out/p',
  },
  {
    name: 'ssh -F with an agent-written file that Includes the ProxyCommand',
    files: {
      'home/outer.cfg': 'Include @WS@/inner.cfg\n',
      'ws/inner.cfg': 'ProxyCommand sh -c "echo pwned > @OUT@/p"\n',
    },
    cmd: 'ssh -F @HOME@/outer.cfg -o BatchMode=yes example.invalid',
    expect: 'sandbox',
    proves: 'out/p',
  },
  {
    name: "twin: ssh -F with the user's own config",
    files: { 'home/ssh.cfg': 'Host *\n  ConnectTimeout 2\n  BatchMode yes\n' },
    cmd: 'ssh -F @HOME@/ssh.cfg -p 1 127.0.0.1',
    expect: 'allow',
  },
  {
    name: 'ssh runs $SSH_ASKPASS written by the agent',
    env: { SSH_ASKPASS: '@WS@/ask.sh', SSH_ASKPASS_REQUIRE: 'force' },
    cmd: 'ssh -p 1 127.0.0.1',
    expect: 'sandbox',
    modelOnly: true,
  },
  {
    name: "twin: the system's $SSH_ASKPASS",
    env: { SSH_ASKPASS: '/usr/bin/ssh-askpass', SSH_ASKPASS_REQUIRE: 'force' },
    cmd: 'ssh -p 1 127.0.0.1',
    expect: 'allow',
    modelOnly: true,
  },
];

interface Tree {
  dir: string;
  ws: string;
  home: string;
  out: string;
}

function makeTree(c: Case, k: number): Tree {
  const dir = join(root, String(k));
  const t = { dir, ws: join(dir, 'ws'), home: join(dir, 'home'), out: join(dir, 'out') };
  for (const d of [t.ws, t.home, t.out]) mkdirSync(d, { recursive: true });
  writeFileSync(join(t.out, 'secret'), 'CANARY\n');
  for (const [path, text] of Object.entries(c.files ?? {})) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), fill(text, t));
  }
  return t;
}

function fill(s: string, t: Tree): string {
  return s
    .replaceAll('@URL@', url)
    .replaceAll('@WS@', t.ws)
    .replaceAll('@HOME@', t.home)
    .replaceAll('@OUT@', t.out);
}

function envOf(c: Case, t: Tree): Record<string, string> {
  const env: Record<string, string> = { PATH: '/usr/bin:/bin', HOME: t.home, LC_ALL: 'C' };
  for (const [k, v] of Object.entries(c.env ?? {})) env[k] = fill(v, t);
  return env;
}

const within = (p: string, dir: string) => p === dir || p.startsWith(`${dir}/`);

function verdictOf(accesses: readonly Access[], t: Tree): { verdict: Verdict; why: string } {
  for (const a of accesses) {
    if (!a.certain || a.realPath === null) return { verdict: 'sandbox', why: a.reason ?? 'uncertain' };
    if (a.runs !== undefined && within(a.realPath, t.ws))
      return { verdict: 'sandbox', why: `${a.runs} ${a.realPath}` };
  }
  for (const a of accesses) {
    if (a.runs !== undefined || a.realPath === null) continue;
    if (within(a.realPath, t.out) || (a.op === 'write' && within(a.realPath, t.home)))
      return { verdict: 'deny', why: `${a.op} ${a.realPath}` };
    if (a.realPath.endsWith('/.env')) return { verdict: 'deny', why: `${a.op} ${a.realPath}` };
    if (a.op === 'write' && a.unknownContents !== undefined)
      return { verdict: 'deny', why: `write* ${a.realPath}: ${a.unknownContents}` };
  }
  return { verdict: 'allow', why: '' };
}

const WRITE_FLAGS = /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND/;

/** What the kernel wrote inside the tree: opens for writing, directories made, renames, unlinks. */
function kernelWrites(log: string, t: Tree): string[] {
  const pending = new Map<string, string>();
  const out = new Set<string>();
  for (const raw of log.split('\n')) {
    const m = /^(\d+)\s+(.*)$/.exec(raw);
    if (!m) continue;
    let line = m[2]!;
    if (line.includes('<unfinished ...>')) {
      pending.set(m[1]!, line.replace(/\s*<unfinished \.\.\.>$/, ''));
      continue;
    }
    const resumed = /^<\.\.\. \w+ resumed>(.*)$/.exec(line);
    if (resumed) line = (pending.get(m[1]!) ?? '') + resumed[1];
    const call = /^(\w+)\((.*)\)\s+=\s+(-?\d+)/.exec(line);
    if (!call || Number(call[3]) < 0) continue;
    const [, name, args] = call;
    const paths = [...args!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((x) => JSON.parse(`"${x[1]}"`) as string);
    const writes =
      /^(open|openat|creat)$/.test(name!) && (name === 'creat' || WRITE_FLAGS.test(args!))
        ? paths.slice(0, 1)
        : /^(mkdir|mkdirat|unlink|unlinkat|rmdir|truncate)$/.test(name!)
          ? paths.slice(0, 1)
          : /^(rename|renameat|renameat2|link|linkat|symlink|symlinkat)$/.test(name!)
            ? paths
            : [];
    for (const p of writes) {
      const abs = isAbsolute(p) ? p : resolve(t.ws, p);
      if (within(abs, t.dir)) out.add(abs);
    }
  }
  return [...out];
}

/** Runs the command under strace; asynchronously, so that the server in this process can answer it. */
async function runForReal(cmd: string, env: Record<string, string>, t: Tree): Promise<string[]> {
  const log = join(t.dir, 'strace.log');
  await new Promise<void>((done) => {
    const child = spawn('strace', ['-f', '-qq', '-o', log, '-e', 'trace=%file', 'bash', '-c', cmd], {
      cwd: t.ws,
      env,
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('close', () => {
      clearTimeout(timer);
      done();
    });
  });
  return kernelWrites(readFileSync(log, 'utf8'), t).filter((p) => p !== log);
}

const covered = (accesses: readonly Access[], p: string) =>
  accesses.some(
    (a) =>
      a.op === 'write' &&
      a.certain &&
      a.realPath !== null &&
      (a.realPath === p || (a.scope === 'subtree' && within(p, a.realPath))),
  );

describe('network inputs: config, environment and name rules, checked by the kernel', () => {
  it('has strace, curl, wget and ssh to run', () => {
    for (const tool of ['strace', 'curl', 'wget', 'ssh'])
      expect(spawnSync('sh', ['-c', `command -v ${tool}`]).status, `${tool} is not installed`).toBe(0);
    execFileSync('strace', ['-f', '-qq', '-e', 'trace=%file', '-o', '/dev/null', 'true']);
  });

  CASES.forEach((c, k) => {
    it(`${c.expect}: ${c.name}`, async () => {
      const t = makeTree(c, k);
      const cmd = fill(c.cmd, t);
      const env = envOf(c, t);
      const ctx: CallContext = {
        sessionId: 's',
        agentId: 'a',
        cwd: t.ws,
        workspace: t.ws,
        home: t.home,
        env,
      };
      const { accesses } = extractAccesses(cmd, ctx);
      const v = verdictOf(accesses, t);
      expect(v.verdict, `${cmd}\n${v.why}`).toBe(c.expect);
      if (c.modelOnly) return;
      const written = await runForReal(cmd, env, t);
      if (c.proves) expect(written, `the attack is real: ${cmd}`).toContain(join(t.dir, c.proves));
      if (v.verdict === 'sandbox') return;
      const missed = written.filter((p) => !covered(accesses, p));
      expect(missed, `${cmd}: kernel writes the model did not report`).toEqual([]);
    }, 30_000);
  });
});
