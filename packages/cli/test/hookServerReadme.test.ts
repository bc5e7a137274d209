import { execSync, spawnSync } from 'node:child_process';
import {
  existsSync,
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
import { afterAll, expect, it } from 'vitest';
import { BIN } from './support/cli.js';

// Issue 25, item 7: what the README says of the hook server a hook call leaves running — where it is, that
// the documented command stops it, and that TOOLGATE_HOOK_SERVER=off / TOOLGATE_CACHE=off never start one.
const root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-readme-server-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function hookOnce(home: string, extra: NodeJS.ProcessEnv = {}) {
  const project = join(home, 'p');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'toolgate.yaml'), 'rules:\n  - { pattern: "<workspace>/**", access: write }\n');
  const event = {
    session_id: 's1',
    transcript_path: join(project, 't.jsonl'),
    cwd: project,
    hook_event_name: 'PreToolUse',
    tool_name: 'Read',
    tool_input: { file_path: join(project, 'a.txt') },
  };
  return spawnSync(process.execPath, [BIN, 'hook', 'claude-code'], {
    cwd: project,
    env: { PATH: process.env.PATH, HOME: home, ...extra },
    input: JSON.stringify(event),
    encoding: 'utf8',
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

it('runs from ~/.cache/toolgate/hookd-*/ and stops with the README command', async () => {
  const home = join(root, 'on');
  expect(hookOnce(home).status).toBe(0);
  const cache = join(home, '.cache', 'toolgate');
  let pidFile: string | undefined;
  for (let i = 0; i < 100 && pidFile === undefined; i++) {
    const dir = existsSync(cache) ? readdirSync(cache).find((n) => n.startsWith('hookd-')) : undefined;
    if (dir && existsSync(join(cache, dir, 'server.pid'))) pidFile = join(cache, dir, 'server.pid');
    else await new Promise((r) => setTimeout(r, 100));
  }
  expect(pidFile).toBeDefined();
  const pid = Number(readFileSync(pidFile!, 'utf8').trim());
  expect(alive(pid)).toBe(true);
  expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).toContain('__hook-server');
  execSync('cat ~/.cache/toolgate/hookd-*/server.pid | xargs kill', { env: { ...process.env, HOME: home } });
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  expect(alive(pid)).toBe(false);
}, 30_000);

it('TOOLGATE_HOOK_SERVER=off and TOOLGATE_CACHE=off start no server', async () => {
  for (const [name, extra] of [
    ['server-off', { TOOLGATE_HOOK_SERVER: 'off' }],
    ['cache-off', { TOOLGATE_CACHE: 'off' }],
  ] as const) {
    const home = join(root, name);
    expect(hookOnce(home, extra).status).toBe(0);
    expect(hookOnce(home, extra).status).toBe(0);
    await new Promise((r) => setTimeout(r, 300));
    const cache = join(home, '.cache', 'toolgate');
    const spools = existsSync(cache) ? readdirSync(cache).filter((n) => n.startsWith('hookd-')) : [];
    expect(spools, name).toEqual([]);
  }
});
