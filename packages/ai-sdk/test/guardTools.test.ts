import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type CallContext, createGuard, ToolgateError } from '@toolgate/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { guardTools } from '../src/index.js';
import type { Scenario } from './fixtures/runScenario.js';

const run = promisify(execFile);
const script = fileURLToPath(new URL('./fixtures/runScenario.ts', import.meta.url));
const packageDir = fileURLToPath(new URL('..', import.meta.url));

let root: string;
let ws: string;
let out: string;

beforeEach(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-ai-sdk-')));
  ws = join(root, 'ws');
  out = join(root, 'outside');
  mkdirSync(join(ws, 'drafts'), { recursive: true });
  mkdirSync(out);
  writeFileSync(join(ws, 'hello.txt'), 'hello from the workspace');
  writeFileSync(join(out, 'secret.txt'), 'top secret');
  symlinkSync(out, join(ws, 'link'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

interface Outcome {
  toolResults: Array<{ toolName: string; output: unknown }>;
  toolErrors: string[];
  secondPrompt: string;
  text: string;
  streamingStarted: boolean;
}

/** One AI SDK session in a child process (see runScenario.ts for why a child). */
async function session(scenario: Omit<Scenario, 'ws'>): Promise<Outcome> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', script, JSON.stringify({ ws, ...scenario })],
    { cwd: packageDir },
  );
  return JSON.parse(stdout) as Outcome;
}

describe('guardTools with the AI SDK mock model driving real tool calls', () => {
  it('runs allowed calls and returns the envelope for denied ones; the model sees the envelope', async () => {
    const o = await session({
      calls: [
        { toolName: 'read_file', input: { path: 'hello.txt' } },
        { toolName: 'write_file', input: { path: join(out, 'secret.txt'), content: 'pwned' } },
      ],
    });
    expect(o.toolResults.find((r) => r.toolName === 'read_file')?.output).toBe('hello from the workspace');
    expect(o.toolResults.find((r) => r.toolName === 'write_file')?.output).toMatchObject({
      code: 'PATH_DENIED',
      tool_name: 'write_file',
      path: join(out, 'secret.txt'),
      allowed_paths: [ws],
    });
    expect(readFileSync(join(out, 'secret.txt'), 'utf8')).toBe('top secret');
    expect(o.secondPrompt).toContain('PATH_DENIED');
    expect(o.text).toBe('done');
  });

  it('denies a write through a symlink that leaves the workspace', async () => {
    const o = await session({
      calls: [{ toolName: 'write_file', input: { path: join(ws, 'link', 'new.txt'), content: 'x' } }],
    });
    expect(o.toolResults[0]?.output).toMatchObject({ code: 'PATH_DENIED', path: join(out, 'new.txt') });
    expect(existsSync(join(out, 'new.txt'))).toBe(false);
  });

  it('onDeny: "throw" turns a deny into a tool error, and execute never runs', async () => {
    const o = await session({
      calls: [{ toolName: 'write_file', input: { path: join(out, 'x.txt'), content: 'x' } }],
      onDeny: 'throw',
    });
    expect(o.toolResults).toHaveLength(0);
    expect(o.toolErrors.join('\n')).toMatch(/rejected/i);
    expect(existsSync(join(out, 'x.txt'))).toBe(false);
  });

  it.each([
    [true, 'written'],
    [false, 'PROMPT_DENIED'],
    [undefined, 'PROMPT_UNANSWERED'],
  ] as const)(
    'a prompt goes to the guard approvers (approver answers %s ⇒ %s)',
    async (approver, expected) => {
      const target = join(ws, 'drafts', 'a.txt');
      const o = await session({
        calls: [{ toolName: 'write_file', input: { path: target, content: 'draft' } }],
        ...(approver === undefined ? {} : { approver }),
      });
      if (expected === 'written') {
        expect(o.toolResults[0]?.output).toBe('written');
        expect(readFileSync(target, 'utf8')).toBe('draft');
      } else {
        expect(o.toolResults[0]?.output).toMatchObject({ code: expected });
        expect(existsSync(target)).toBe(false);
      }
    },
  );

  it('streaming tools (async generators) are judged before their first step and stay streaming', async () => {
    const denied = await session({
      streaming: true,
      calls: [{ toolName: 'read_file', input: { path: join(out, 'secret.txt') } }],
    });
    expect(denied.toolResults[0]?.output).toMatchObject({ code: 'PATH_DENIED' });
    expect(denied.streamingStarted).toBe(false);
    const allowed = await session({
      streaming: true,
      calls: [{ toolName: 'read_file', input: { path: 'hello.txt' } }],
    });
    expect(allowed.toolResults[0]?.output).toBe('hello from the workspace');
    expect(allowed.streamingStarted).toBe(true);
  });

  it('a per-call context function is used: relative paths resolve against its cwd', async () => {
    const o = await session({
      ctxCwd: out,
      calls: [{ toolName: 'write_file', input: { path: 'secret.txt', content: 'x' } }],
    });
    expect(o.toolResults[0]?.output).toMatchObject({ code: 'PATH_DENIED', path: join(out, 'secret.txt') });
    expect(readFileSync(join(out, 'secret.txt'), 'utf8')).toBe('top secret');
  });
});

describe('guardTools arguments', () => {
  const ctx: CallContext = { sessionId: 's', agentId: 'a', cwd: '/', workspace: '/', home: '/', env: {} };
  it('rejects bad arguments with a clear error', () => {
    const guard = createGuard();
    expect(() => guardTools(null as never, guard, ctx)).toThrow(ToolgateError);
    expect(() => guardTools({}, {} as never, ctx)).toThrow(/guard/);
    expect(() => guardTools({}, guard, ctx, { onDeny: 'explode' as never })).toThrow(/onDeny/);
  });

  it('leaves tools without execute (run by the client) unchanged', () => {
    const clientSide = { description: 'asks the user', inputSchema: {} } as never;
    expect(guardTools({ ask: clientSide }, createGuard(), ctx).ask).toBe(clientSide);
  });
});
