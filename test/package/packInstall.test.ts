import { execFileSync, spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// What a user gets from the registry: every package packed as a release packs it (`pnpm pack` rewrites
// `workspace:` ranges), installed with plain npm into an empty directory outside the repository, then used
// with require, import, the CLI and the demo. The tarballs depend only on registry packages, which npm takes
// from its cache when it has them (--prefer-offline). Runs against the built dist/ (the root `test` builds).
const repo = fileURLToPath(new URL('../..', import.meta.url));
const work = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-pack-')));
const packs = join(work, 'packs');
const app = join(work, 'app');
const tarballs: string[] = [];

// pnpm and npm pass settings to child processes as npm_config_* variables; the user's npm has none of them.
const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^npm_|^pnpm_/i.test(k)),
) as NodeJS.ProcessEnv;

function run(cmd: string, args: string[], cwd = app) {
  const r = spawnSync(cmd, args, {
    cwd,
    env: { ...env, HOME: join(work, 'home') },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  mkdirSync(packs);
  mkdirSync(app);
  mkdirSync(join(work, 'home'));
  execFileSync(
    'pnpm',
    ['-r', '--filter', './packages/*', '--filter', './plugins/*', 'pack', '--pack-destination', packs],
    {
      cwd: repo,
      stdio: 'ignore',
    },
  );
  tarballs.push(
    ...readdirSync(packs)
      .filter((f) => f.endsWith('.tgz'))
      .map((f) => join(packs, f)),
  );
  writeFileSync(join(app, 'package.json'), '{"name":"fresh-app","private":true}\n');
  // The npm cache stays the user's (HOME only for the commands run below): a fresh cache would need the network.
  execFileSync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...tarballs],
    {
      cwd: app,
      env,
      stdio: 'pipe',
      timeout: 120_000,
    },
  );
}, 150_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed tarballs', () => {
  it('are every publishable package, each with a LICENSE and no workspace: range', () => {
    expect(tarballs.map((t) => t.split('/').pop()).sort()).toEqual(
      [
        'toolgate-0.1.0.tgz',
        'toolgate-ai-sdk-0.1.0.tgz',
        'toolgate-approvals-0.1.0.tgz',
        'toolgate-audit-log-0.1.0.tgz',
        'toolgate-console-0.1.0.tgz',
        'toolgate-core-0.1.0.tgz',
        'toolgate-filetime-0.1.0.tgz',
        'toolgate-folder-rules-0.1.0.tgz',
        'toolgate-mcp-0.1.0.tgz',
        'toolgate-sandbox-0.1.0.tgz',
        'toolgate-shell-0.1.0.tgz',
        'toolgate-store-redis-0.1.0.tgz',
        'toolgate-webhooks-0.1.0.tgz',
      ].sort(),
    );
    for (const tarball of tarballs) {
      const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n');
      expect(files, tarball).toContain('package/LICENSE');
      const manifest = execFileSync('tar', ['xzf', tarball, '-O', 'package/package.json'], {
        encoding: 'utf8',
      });
      expect(manifest, tarball).not.toContain('workspace:');
      const pkg = JSON.parse(manifest) as Record<string, unknown>;
      for (const field of ['license', 'repository', 'homepage', 'bugs', 'keywords', 'engines', 'files'])
        expect(pkg[field], `${tarball} ${field}`).toBeDefined();
      expect(readFileSync(join(app, 'node_modules', String(pkg.name), 'LICENSE'), 'utf8')).toMatch(
        /^MIT License/,
      );
    }
  });
});

describe('installed with npm into an empty directory', () => {
  it('require() works for every package', () => {
    const r = run(process.execPath, [
      '-e',
      `const names = ['@toolgate/core', '@toolgate/folder-rules', '@toolgate/shell', '@toolgate/audit-log',
        '@toolgate/webhooks', '@toolgate/approvals', '@toolgate/mcp', '@toolgate/ai-sdk', '@toolgate/console', '@toolgate/store-redis', 'toolgate'];
       console.log(names.map((n) => n + ':' + Object.keys(require(n)).length).join(' '));
       const { createGuard } = require('@toolgate/core');
       const { folderRules } = require('@toolgate/folder-rules');
       const guard = createGuard({ plugins: [folderRules({ rules: [{ pattern: '/ws/**', access: 'write' }] })] });
       const ctx = { sessionId: 's', agentId: 'a', cwd: '/ws', workspace: '/ws', home: '/home/u', env: {} };
       guard.check({ tool: 'read_file', args: { path: '/etc/passwd' } }, ctx).then((d) => console.log('decision', d.action));`,
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).not.toMatch(/:0\b/); // every package exported something
    expect(r.stdout).toContain('decision deny');
  });

  it('import works for every package, and require and import share one module instance', () => {
    const r = run(process.execPath, [
      '--input-type=module',
      '-e',
      `import { createRequire } from 'node:module';
       import * as core from '@toolgate/core';
       import { shell } from '@toolgate/shell';
       import { guardTools } from '@toolgate/ai-sdk';
       import { createGateway } from '@toolgate/mcp';
       import { main } from 'toolgate';
       const required = createRequire(import.meta.url)('@toolgate/core');
       console.log(typeof shell, typeof guardTools, typeof createGateway, typeof main, required.ToolgateError === core.ToolgateError);`,
    ]);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('function function function function true');
  });

  it('npx toolgate --help lists the commands', () => {
    const r = run('npx', ['--no-install', 'toolgate', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/check/);
    expect(r.stdout).toMatch(/hook/);
  });

  it('the installed hook (the bundle, with its lazy parts from node_modules) defers a Read and denies ~/.ssh', () => {
    const project = join(app, 'project');
    mkdirSync(project);
    expect(run('npx', ['--no-install', 'toolgate', 'init', '--dir', project]).status).toBe(0);
    const event = (tool_name: string, tool_input: Record<string, unknown>) =>
      JSON.stringify({
        session_id: 's',
        transcript_path: '/tmp/t',
        cwd: project,
        hook_event_name: 'PreToolUse',
        tool_name,
        tool_input,
      });
    const hook = (input: string) => {
      const r = spawnSync(join(app, 'node_modules', '.bin', 'toolgate'), ['hook', 'claude-code'], {
        cwd: project,
        input,
        encoding: 'utf8',
        env: { ...env, HOME: join(work, 'home'), CLAUDE_PROJECT_DIR: project },
      });
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    // twice each: the first call compiles and caches the policy and the code, the second uses both
    for (let i = 0; i < 2; i++) {
      expect(hook(event('Read', { file_path: join(project, 'README.md') }))).toEqual({
        status: 0,
        stdout: '',
        stderr: '',
      });
      const denied = hook(event('Bash', { command: 'if true; then cat ~/.ssh/id_rsa; fi' })); // bash-parser, lazily
      expect(denied.status).toBe(0);
      expect(JSON.parse(denied.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    }
  });

  it('the installed toolgate run (its bundle; the policy loader lazily from node_modules) masks ~/.ssh', () => {
    const home = join(work, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_rsa'), 'CANARY-SSH');
    const policy = join(work, 'run-policy.yaml');
    writeFileSync(policy, 'default: read\nrules:\n  - { pattern: "~/.ssh/**", access: deny }\n');
    const bin = join(app, 'node_modules', '.bin', 'toolgate');
    // twice: the first run compiles and caches the policy and the code, the second uses both
    for (let i = 0; i < 2; i++) {
      const r = spawnSync(bin, ['run', '--policy', policy, '--', 'sh', '-c', 'echo ran; cat ~/.ssh/id_rsa'], {
        cwd: app,
        encoding: 'utf8',
        env: { ...env, HOME: home },
      });
      expect(r.stdout).toBe('ran\n');
      expect(r.status).not.toBe(0);
      expect(r.stderr).toMatch(/id_rsa/);
    }
  });

  it('npx toolgate demo runs (no devDependency needed) and shows denies', () => {
    const r = run('npx', ['--no-install', 'toolgate', 'demo']);
    expect(r.stderr.replace(/npm warn.*\n/g, '')).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/PATH_DENIED/);
    expect(r.stdout).toMatch(/hash chain: intact/);
  });
});
