import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGuard, type GuardPlugin, isWithin } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCode } from '../src/hook/claudeCodeTools.js';
import { geminiCli } from '../src/hook/geminiCli.js';
import type { HookHost } from '../src/hook/hookHost.js';
import { runHook } from '../src/hook/runHook.js';
import { testPolicy } from './support/testPolicy.js';

interface Case {
  event: string;
  expect: 'allow' | 'deny' | 'ask' | 'none' | 'block';
  code?: string;
}

/** Each host: its fixtures, and how to read its answer back into decision + reason (undefined = no opinion). */
const hosts: Array<{
  host: HookHost;
  dir: string;
  read(stdout: string): { decision: string; reason: string } | undefined;
}> = [
  {
    host: claudeCode,
    dir: 'claude-code',
    read: (stdout) => {
      if (stdout === '') return undefined;
      const o = JSON.parse(stdout) as { hookSpecificOutput: Record<string, string> };
      expect(o.hookSpecificOutput.hookEventName).toBe('PreToolUse');
      return {
        decision: o.hookSpecificOutput.permissionDecision!,
        reason: o.hookSpecificOutput.permissionDecisionReason!,
      };
    },
  },
  {
    host: geminiCli,
    dir: 'gemini-cli',
    read: (stdout) => {
      const o = JSON.parse(stdout) as { decision?: string; reason?: string };
      return o.decision === undefined ? undefined : { decision: o.decision, reason: o.reason ?? '' };
    },
  },
];

function fixturesOf(dir: string): URL {
  return new URL(`./fixtures/${dir}/`, import.meta.url);
}

function casesOf(dir: string): Case[] {
  return readFileSync(new URL('cases.jsonl', fixturesOf(dir)), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Case);
}

let root: string;
let ws: string;
let out: string;
let home: string;

beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-hook-')));
  ws = join(root, 'ws');
  out = join(root, 'outside');
  home = join(root, 'home');
  mkdirSync(join(ws, 'src'), { recursive: true });
  mkdirSync(join(ws, 'deploy'));
  mkdirSync(out);
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(ws, 'hello.txt'), 'hello\n');
  writeFileSync(join(out, 'secret.txt'), 'top secret\n');
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'key\n');
  symlinkSync(out, join(ws, 'link'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function event(name: string, dir = 'claude-code'): string {
  return readFileSync(new URL(`${name}.json`, fixturesOf(dir)), 'utf8')
    .replaceAll('__WS__', ws)
    .replaceAll('__OUT__', out);
}

function run(stdin: string, host: HookHost = claudeCode, approveAllowed = false) {
  const guard = createGuard({ plugins: [testPolicy({ write: [ws], prompt: [join(ws, 'deploy')] })] });
  return runHook(host, stdin, { guard, home, env: { HOME: home }, approveAllowed });
}

describe.each(hosts)('toolgate hook $dir: recorded events', ({ host, dir, read }) => {
  const cases = casesOf(dir);
  it('every fixture file has a case line', () => {
    const files = readdirSync(fixturesOf(dir))
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -5))
      .sort();
    expect(cases.map((c) => c.event).sort()).toEqual(files);
  });

  it.each(cases)('$event ⇒ $expect $code', async (c) => {
    const answer = await run(event(c.event, dir), host);
    if (c.expect === 'block') {
      expect(answer.exitCode).toBe(2);
      expect(answer.stdout).toBe('');
      expect(answer.stderr).toMatch(/^toolgate: call blocked: /);
      return;
    }
    expect(answer.exitCode).toBe(0);
    const output = read(answer.stdout);
    if (c.expect === 'none') {
      expect(output).toBeUndefined();
      return;
    }
    if (c.expect === 'allow') {
      // A policy allow defers to the host's own permission flow: no decision at all…
      expect(output).toBeUndefined();
      // …unless the user opted in to approveAllowed, which answers the host's "allow".
      const approved = read((await run(event(c.event, dir), host, true)).stdout);
      expect(approved?.decision).toBe('allow');
      expect(approved?.reason).toMatch(/^toolgate: allowed by policy/);
      return;
    }
    expect(output?.decision).toBe(c.expect);
    expect(output?.reason).toMatch(/^toolgate: /);
    if (c.code) {
      const envelope = JSON.parse(output!.reason.slice('toolgate: '.length)) as Record<string, unknown>;
      expect(envelope.code).toBe(c.code);
    }
  });
});

describe('toolgate hook: the workspace', () => {
  // A policy over <workspace>: writes only inside ctx.workspace.
  const workspaceOnly: GuardPlugin = {
    name: 'workspace-only',
    policy: true,
    apply(hooks) {
      hooks.collectAccesses.tap('x', (accesses, call, state) =>
        typeof call.args.path === 'string'
          ? [...accesses, state.access(call.args.path, 'write', { origin: 'args.path' })]
          : accesses,
      );
      hooks.beforeToolCall.tap('x', (_call, state) => {
        for (const a of state.accesses)
          if (!isWithin(a.realPath ?? '', state.ctx.workspace))
            return { action: 'deny', code: 'PATH_DENIED', reason: 'outside the workspace', access: a };
        return undefined;
      });
    },
  };
  const movedToRoot = () => event('write-outside').replace(`"cwd":"${ws}"`, '"cwd":"/"');

  it('is the project dir the assistant exports, not the cwd the agent has cd-ed to', async () => {
    const answer = await runHook(claudeCode, movedToRoot(), {
      guard: createGuard({ plugins: [workspaceOnly] }),
      home,
      env: { CLAUDE_PROJECT_DIR: ws },
    });
    expect(answer.stdout).toContain('"permissionDecision":"deny"');
  });

  it('falls back to the event cwd only when no project dir is exported (here: / — which is why the variable wins)', async () => {
    const answer = await runHook(claudeCode, movedToRoot(), {
      guard: createGuard({ plugins: [workspaceOnly] }),
      home,
      env: {},
    });
    expect(answer).toEqual({ stdout: '', stderr: '', exitCode: 0 }); // allowed: no decision, the host's flow runs
  });

  it('--workspace beats both', async () => {
    const answer = await runHook(claudeCode, movedToRoot(), {
      guard: createGuard({ plugins: [workspaceOnly] }),
      home,
      env: { CLAUDE_PROJECT_DIR: '/' },
      workspace: ws,
    });
    expect(answer.stdout).toContain('"permissionDecision":"deny"');
  });
});

describe('toolgate hook: failure paths', () => {
  it('the deny reason carries the resolved path the model tried (symlink followed)', async () => {
    const answer = await run(event('edit-through-symlink'));
    const reason = (JSON.parse(answer.stdout) as { hookSpecificOutput: { permissionDecisionReason: string } })
      .hookSpecificOutput.permissionDecisionReason;
    expect(JSON.parse(reason.slice('toolgate: '.length))).toMatchObject({
      path: join(out, 'secret.txt'),
      operation: 'write',
      allowed_paths: [ws],
    });
  });

  it('a plugin that throws blocks the call (PLUGIN_ERROR), never allows it', async () => {
    const guard = createGuard({
      plugins: [
        {
          name: 'broken',
          apply: (hooks) =>
            hooks.beforeToolCall.tap('x', () => {
              throw new Error('boom');
            }),
        },
      ],
    });
    const answer = await runHook(claudeCode, event('read-in-workspace'), { guard, home, env: {} });
    const output = JSON.parse(answer.stdout) as { hookSpecificOutput: Record<string, string> };
    expect(output.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(output.hookSpecificOutput.permissionDecisionReason).toContain('PLUGIN_ERROR');
  });

  it('a guard that rejects (internal error) is a blocking error with exit code 2', async () => {
    const guard = { ...createGuard(), check: () => Promise.reject(new Error('disk on fire')) };
    const answer = await runHook(claudeCode, event('read-in-workspace'), { guard, home, env: {} });
    expect(answer).toMatchObject({ exitCode: 2, stdout: '' });
    expect(answer.stderr).toContain('disk on fire');
  });
});
