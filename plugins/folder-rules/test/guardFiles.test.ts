import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { folderRules, guardPathsOf, loadPolicy } from '../src/index.js';

// The built-in guard files: whatever the rules say (here: the workspace and the whole home writable), the
// agent never rewrites the policy in use, toolgate's cache and config, or an assistant's hook settings.
let root: string;
let ws: string;
let home: string;
let policyFile: string;
let ctx: CallContext;
let guard: ReturnType<typeof createGuard>;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-fr-guard-')));
  ws = join(root, 'ws');
  home = join(root, 'home');
  mkdirSync(join(ws, '.claude', 'commands'), { recursive: true });
  mkdirSync(join(home, '.cache', 'toolgate', 'hookd-1'), { recursive: true });
  writeFileSync(join(home, '.cache', 'toolgate', 'hookd-1', 'req-1'), 'SECRET');
  writeFileSync(join(ws, '.claude', 'settings.json'), '{}');
  symlinkSync(join(ws, '.claude'), join(ws, 'claude-link'));
  policyFile = join(ws, 'toolgate.yaml');
  writeFileSync(
    policyFile,
    ['default: write', 'rules:', '  - { pattern: "<workspace>/**", access: write }', ''].join('\n'),
  );
  ctx = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home, env: { HOME: home } };
  guard = createGuard({ plugins: [folderRules({ policy: loadPolicy({ file: policyFile }) })] });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const write = (path: string) => guard.check({ tool: 'write_file', args: { path, content: 'x' } }, ctx);

describe('guard files (built in, not policy-dependent)', () => {
  it('lists the policy in use, the hook settings of every assistant, toolgate cache and config', () => {
    const g = guardPathsOf(loadPolicy({ file: policyFile }), ctx);
    expect(g.files).toEqual(
      expect.arrayContaining([
        policyFile,
        join(ws, '.claude', 'settings.json'),
        join(ws, '.claude', 'settings.local.json'),
        join(home, '.claude', 'settings.json'),
        join(ws, '.gemini', 'settings.json'),
        join(home, '.gemini', 'settings.json'),
      ]),
    );
    expect(g.dirs).toEqual([
      join(home, '.cache', 'toolgate'),
      join(home, '.config', 'toolgate'),
      join(ws, '.toolgate'),
    ]);
    expect(g.sealed).toContain(join(ws, '.claude'));
  });

  it.each([
    ['the policy in use', () => policyFile],
    ['the project hook settings', () => join(ws, '.claude', 'settings.json')],
    ['new project-local hook settings', () => join(ws, '.claude', 'settings.local.json')],
    ['hook settings reached through a link', () => join(ws, 'claude-link', 'settings.local.json')],
    ['the user hook settings', () => join(home, '.claude', 'settings.json')],
    ['Gemini CLI settings', () => join(home, '.gemini', 'settings.json')],
    ['a compiled policy in the cache', () => join(home, '.cache', 'toolgate', 'policies', 'x.json')],
    ['a project policy', () => join(ws, '.toolgate', 'policy.yaml')],
    ['the user policy', () => join(home, '.config', 'toolgate', 'policy.yaml')],
  ])('denies writing %s (GUARD_FILE), though the rules allow it', async (_, path) => {
    const d = await write(path());
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.code).toBe('GUARD_FILE');
    expect(d.envelope?.error).toMatch(/read-only to the agent whatever the policy says/);
  });

  it('denies planting a project policy where discovery would find it (workspace or above), not deeper', async () => {
    for (const path of [
      join(ws, 'toolgate.yml'),
      join(root, 'toolgate.json'),
      join(root, '.toolgate', 'policy.yaml'),
    ]) {
      const d = await write(path);
      expect(d.reasons[0]?.code, path).toBe('GUARD_FILE');
      expect(d.envelope?.error).toMatch(/project policy/);
    }
    expect((await write(join(ws, 'src', 'toolgate.yaml'))).action).toBe('allow');
  });

  it('denies moving a directory that holds a guard file away, allows ordinary ones', async () => {
    const moved = await guard.check(
      { tool: 'move_file', args: { source: join(ws, '.claude'), destination: join(ws, '.claude.old') } },
      ctx,
    );
    expect(moved.action).toBe('deny');
    expect(moved.reasons[0]?.code).toBe('GUARD_FILE');
    mkdirSync(join(ws, 'lib'), { recursive: true });
    const ordinary = await guard.check(
      { tool: 'move_file', args: { source: join(ws, 'lib'), destination: join(ws, 'lib2') } },
      ctx,
    );
    expect(ordinary.action).toBe('allow');
  });

  it('allows what is not a guard file: .claude/commands/x.md, README.md', async () => {
    expect((await write(join(ws, '.claude', 'commands', 'x.md'))).action).toBe('allow');
    expect((await write(join(ws, 'README.md'))).action).toBe('allow');
    expect((await write(join(ws, '.claude', 'SETTINGS.md'))).action).toBe('allow');
  });

  it("denies reading inside toolgate's runtime directory (the hook server's spool)", async () => {
    const d = await guard.check(
      { tool: 'read_file', args: { path: join(home, '.cache', 'toolgate', 'hookd-1', 'req-1') } },
      ctx,
    );
    expect(d.reasons[0]?.code).toBe('GUARD_FILE');
    const cache = await guard.check(
      { tool: 'read_file', args: { path: join(home, '.cache', 'toolgate', 'other') } },
      ctx,
    );
    expect(cache.action).toBe('allow');
  });
});
