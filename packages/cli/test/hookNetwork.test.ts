import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGuard } from '@toolgate/core';
import { folderRules } from '@toolgate/folder-rules';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCode } from '../src/hook/claudeCodeTools.js';
import { geminiCli } from '../src/hook/geminiCli.js';
import type { HookHost } from '../src/hook/hookHost.js';
import { runHook } from '../src/hook/runHook.js';

// Issue 26 through the assistants' hooks, with their recorded WebFetch / web_fetch events (fixtures shared
// with hookHosts.test.ts): Claude Code's url and Gemini CLI's URLs inside the prompt are judged.
let root: string;
let ws: string;
let home: string;
beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-hook-net-')));
  ws = join(root, 'ws');
  home = join(root, 'home');
  mkdirSync(ws);
  mkdirSync(home);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const event = (dir: string) =>
  readFileSync(new URL(`./fixtures/${dir}/web-fetch.json`, import.meta.url), 'utf8').replaceAll('__WS__', ws);

function run(host: HookHost, dir: string, network: Record<string, unknown>) {
  const guard = createGuard({
    plugins: [folderRules({ rules: [{ pattern: '<workspace>/**', access: 'write' }], network })],
  });
  return runHook(host, event(dir), { guard, home, env: { HOME: home } });
}

describe('hooks: a fetch of a host the network section names', () => {
  it('Claude Code WebFetch: allowed host ⇒ no opinion; denied ⇒ deny naming host and rule; prompt ⇒ ask', async () => {
    const allowed = await run(claudeCode, 'claude-code', {
      default: 'deny',
      rules: [{ host: 'example.com', action: 'allow' }],
    });
    expect(allowed.stdout).toBe('');
    const denied = await run(claudeCode, 'claude-code', { default: 'deny', presets: ['npm'] });
    const d = JSON.parse(denied.stdout) as {
      hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
    };
    expect(d.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(d.hookSpecificOutput.permissionDecisionReason).toMatch(/NETWORK_DENIED/);
    expect(d.hookSpecificOutput.permissionDecisionReason).toMatch(/example\.com/);
    const asked = await run(claudeCode, 'claude-code', { default: 'prompt' });
    expect(JSON.parse(asked.stdout).hookSpecificOutput.permissionDecision).toBe('ask');
  });

  it('Gemini CLI web_fetch: the URL in its prompt is judged (no ask there: denied unless allowed)', async () => {
    const denied = await run(geminiCli, 'gemini-cli', { default: 'deny', presets: ['npm'] });
    const o = JSON.parse(denied.stdout) as { decision?: string; reason?: string };
    expect(o.decision).toBe('deny');
    expect(o.reason).toMatch(/NETWORK_DENIED[\s\S]*example\.com|example\.com[\s\S]*NETWORK_DENIED/);
    const allowed = await run(geminiCli, 'gemini-cli', {
      default: 'deny',
      rules: [{ host: 'example.com', action: 'allow' }],
    });
    expect((JSON.parse(allowed.stdout || '{}') as { decision?: string }).decision ?? 'allow').toBe('allow');
  });
});
