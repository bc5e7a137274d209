import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

// The README's "Use it with Claude Code in 60 seconds" runs as written, in a fresh git project with its own
// HOME, with `toolgate` on PATH as the built CLI (the global install line is the one skipped: test/package
// installs the packed tarballs with npm).
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const section = readme.slice(readme.indexOf('## Use it with Claude Code in 60 seconds'));
const script = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
const shownOutput = /```json\n([\s\S]*?)```/.exec(section)?.[1];
const bin = fileURLToPath(new URL('../../packages/cli/bin/toolgate.cjs', import.meta.url));
const work = realpathSync(mkdtempSync(join(tmpdir(), 'tg-readme-cc-')));
afterAll(() => rmSync(work, { recursive: true, force: true }));

it('init, install and a denied Read of ~/.ssh/id_rsa, as the README shows', () => {
  expect(script).toBeDefined();
  const home = join(work, 'home');
  const binDir = join(work, 'bin');
  const project = join(work, 'your-project');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'key');
  mkdirSync(binDir);
  mkdirSync(project);
  execFileSync('git', ['init', '-q', project]);
  writeFileSync(join(binDir, 'toolgate'), `#!/bin/sh\nexec '${process.execPath}' '${bin}' "$@"\n`);
  chmodSync(join(binDir, 'toolgate'), 0o755);
  const lines = script!.split('\n').filter((l) => !/^npm install -g /.test(l));
  const r = spawnSync('bash', ['-euo', 'pipefail', '-c', lines.join('\n')], {
    cwd: work,
    encoding: 'utf8',
    env: { PATH: `${binDir}:${process.env.PATH}`, HOME: home },
    timeout: 30_000,
  });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/wrote .*your-project\/toolgate\.yaml/);
  expect(r.stdout).toMatch(/PreToolUse hook installed in .*your-project\/\.claude\/settings\.json/);
  const answer = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
    hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
  };
  expect(answer.hookSpecificOutput.permissionDecision).toBe('deny');
  const envelope = JSON.parse(answer.hookSpecificOutput.permissionDecisionReason.replace(/^toolgate: /, ''));
  expect(envelope).toMatchObject({
    code: 'PATH_DENIED',
    tool_name: 'read_file',
    path: join(home, '.ssh', 'id_rsa'),
  });
  // the output the README shows is the real one, abbreviated
  expect(shownOutput).toMatch(/"permissionDecision":\s*"deny"/);
  expect(shownOutput).toContain(envelope.error.replaceAll('"', '\\"'));
  // and the hook the README installed is in Claude Code's settings
  const settings = JSON.parse(readFileSync(join(project, '.claude', 'settings.json'), 'utf8'));
  // (the launcher: toolgate found in the project or on PATH when the hook runs, no path of this machine)
  const command = settings.hooks.PreToolUse[0].hooks[0].command as string;
  expect(command).toMatch(/\btoolgate hook claude-code\b/);
  expect(command).not.toContain(work);
});
