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
import { createGuard } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runClaudeCodeHook } from '../src/hook/runClaudeCodeHook.js';
import { testPolicy } from './support/testPolicy.js';

const fixtures = new URL('./fixtures/claude-code/', import.meta.url);
interface Case {
  event: string;
  expect: 'allow' | 'deny' | 'ask' | 'none' | 'block';
  code?: string;
}
const cases = readFileSync(new URL('cases.jsonl', fixtures), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as Case);

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

function event(name: string): string {
  return readFileSync(new URL(`${name}.json`, fixtures), 'utf8')
    .replaceAll('__WS__', ws)
    .replaceAll('__OUT__', out);
}

function run(stdin: string) {
  const guard = createGuard({ plugins: [testPolicy({ write: [ws], prompt: [join(ws, 'deploy')] })] });
  return runClaudeCodeHook(stdin, { guard, home, env: { HOME: home } });
}

describe('toolgate hook claude-code: recorded PreToolUse events', () => {
  it('every fixture file has a case line', () => {
    const files = readdirSync(fixtures)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -5))
      .sort();
    expect(cases.map((c) => c.event).sort()).toEqual(files);
  });

  it.each(cases)('$event ⇒ $expect $code', async (c) => {
    const answer = await run(event(c.event));
    if (c.expect === 'block') {
      expect(answer.exitCode).toBe(2);
      expect(answer.stdout).toBe('');
      expect(answer.stderr).toMatch(/^toolgate: call blocked: /);
      return;
    }
    expect(answer.exitCode).toBe(0);
    if (c.expect === 'none') {
      expect(answer.stdout).toBe('');
      return;
    }
    const output = JSON.parse(answer.stdout) as { hookSpecificOutput: Record<string, string> };
    expect(output.hookSpecificOutput.hookEventName).toBe('PreToolUse');
    expect(output.hookSpecificOutput.permissionDecision).toBe(c.expect);
    expect(output.hookSpecificOutput.permissionDecisionReason).toMatch(/^toolgate: /);
    if (c.code) {
      const envelope = JSON.parse(
        output.hookSpecificOutput.permissionDecisionReason!.slice('toolgate: '.length),
      ) as Record<string, unknown>;
      expect(envelope.code).toBe(c.code);
    }
  });

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
    const answer = await runClaudeCodeHook(event('read-in-workspace'), { guard, home, env: {} });
    const output = JSON.parse(answer.stdout) as { hookSpecificOutput: Record<string, string> };
    expect(output.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(output.hookSpecificOutput.permissionDecisionReason).toContain('PLUGIN_ERROR');
  });

  it('a guard that rejects (internal error) is a blocking error with exit code 2', async () => {
    const guard = { ...createGuard(), check: () => Promise.reject(new Error('disk on fire')) };
    const answer = await runClaudeCodeHook(event('read-in-workspace'), { guard, home, env: {} });
    expect(answer).toMatchObject({ exitCode: 2, stdout: '' });
    expect(answer.stderr).toContain('disk on fire');
  });
});
