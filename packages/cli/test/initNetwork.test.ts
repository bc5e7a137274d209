import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitRemoteHosts } from '../src/init/gitRemotes.js';
import { runCli } from './support/cli.js';

// Issue 26: `toolgate init` writes a network section that keeps everyday work working — the registries of
// the ecosystems found, the hosts of the project's git remotes, localhost — and asks about (strict: denies)
// the rest.
let root: string;
let project: string;
let home: string;
const toolgate = (args: string[], cwd = project) => runCli(args, { cwd, home });
const fetchCall = (url: string) => JSON.stringify({ tool: 'WebFetch', args: { url, prompt: 'p' } });

const GIT_CONFIG = `[core]
\trepositoryformatversion = 0
[remote "origin"]
\turl = https://github.com/acme/app.git
\tfetch = +refs/heads/*:refs/remotes/origin/*
[remote "mirror"]
\turl = git@gitlab.corp.example:acme/app.git
\tpushurl = ssh://git@push.corp.example:2222/acme/app.git
[remote "local"]
\turl = /srv/git/app.git
[branch "main"]
\tremote = origin
\turl = https://not-a-remote.example/
`;

beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-init-net-')));
  project = join(root, 'app');
  home = join(root, 'home');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(home);
  writeFileSync(join(project, 'package.json'), '{"name":"app"}');
  writeFileSync(join(project, 'requirements.txt'), 'requests\n');
  writeFileSync(join(project, '.git', 'config'), GIT_CONFIG);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('git remote hosts', () => {
  it('https, scp-like and ssh:// remotes (url and pushurl); local paths and non-remote sections are not hosts', () => {
    expect(gitRemoteHosts(project)).toEqual(['github.com', 'gitlab.corp.example', 'push.corp.example']);
  });

  it('a worktree: .git is a file naming the gitdir, whose commondir holds the config', () => {
    const main = join(root, 'main-repo');
    const wt = join(root, 'wt');
    mkdirSync(join(main, '.git', 'worktrees', 'wt'), { recursive: true });
    mkdirSync(wt);
    writeFileSync(
      join(main, '.git', 'config'),
      '[remote "origin"]\n\turl = https://bitbucket.org/acme/x.git\n',
    );
    writeFileSync(join(main, '.git', 'worktrees', 'wt', 'commondir'), '../..\n');
    writeFileSync(join(wt, '.git'), `gitdir: ${join(main, '.git', 'worktrees', 'wt')}\n`);
    expect(gitRemoteHosts(wt)).toEqual(['bitbucket.org']);
    expect(gitRemoteHosts(join(root, 'home'))).toEqual([]);
  });
});

describe('toolgate init: the network section', () => {
  it('standard: registries, remotes and localhost allowed; other hosts asked; its tests pass', () => {
    const r = toolgate(['init', '--preset', 'standard', '--force']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /network: .*github\.com, gitlab\.corp\.example, push\.corp\.example.*asked about/,
    );
    const text = readFileSync(join(project, 'toolgate.yaml'), 'utf8');
    expect(text).toMatch(/^ {2}default: prompt$/m);
    expect(text).toMatch(/^ {2}presets: \[npm, pypi, github\]$/m);
    expect(text).toContain('- { host: "gitlab.corp.example", action: allow }');
    expect(text).toContain('- { host: localhost, action: allow }');
    const lint = toolgate(['lint']);
    expect(lint.code, lint.stdout).toBe(0);
    expect(lint.stdout).toMatch(/tests 14 passed, 0 failed/);
    expect(lint.stdout).not.toMatch(/network-rule-shadowed/);
    // the policy's own network tests (registries, remotes, localhost allowed; another host asked) passed
    // above; through check: an everyday fetch, and userinfo does not smuggle a host past the allowlist
    expect(toolgate(['check', '--call', fetchCall('https://files.pythonhosted.org/x.whl')]).code).toBe(0);
    expect(toolgate(['check', '--call', fetchCall('https://github.com@exfil.example/')]).code).toBe(3);
  });

  it('strict: the same hosts allowed, every other host denied', () => {
    expect(toolgate(['init', '--preset', 'strict', '--force']).code).toBe(0);
    const text = readFileSync(join(project, 'toolgate.yaml'), 'utf8');
    expect(text).toMatch(/^ {2}default: deny$/m);
    const denied = toolgate(['check', '--call', fetchCall('https://exfil.example/')]);
    expect(denied.code).toBe(1);
    expect(denied.stdout).toContain('NETWORK_DENIED');
  });

  it("behind an HTTP proxy (HTTPS_PROXY when init runs): the proxy's host is allowed, so sandboxed runs can go through it", () => {
    const bare = join(root, 'proxied');
    mkdirSync(bare);
    const r = runCli(['init', '--stdout', '--preset', 'standard'], {
      cwd: bare,
      home,
      env: { HTTPS_PROXY: 'http://user:pw@proxy.corp.example:3128', NO_PROXY: 'localhost' },
    });
    expect(r.stdout).toContain('- { host: "proxy.corp.example", action: allow }');
    expect(r.stdout).not.toContain('pw');
    // Twin: no proxy in the environment, no such rule.
    const plain = toolgate(['init', '--stdout', '--preset', 'standard'], bare);
    expect(plain.stdout).not.toContain('proxy.corp.example');
  });

  it('a project with neither manifest nor remotes still gets localhost, no presets', () => {
    const bare = join(root, 'bare');
    mkdirSync(bare);
    const r = toolgate(['init', '--stdout', '--preset', 'standard'], bare);
    expect(r.stdout).toContain('- { host: localhost, action: allow }');
    expect(r.stdout).not.toMatch(/presets:/);
  });
});
