import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard } from '@toolgate/core';
import { folderRules } from '@toolgate/folder-rules';
import { shell } from '@toolgate/shell';
import { afterAll, expect, it } from 'vitest';

// The README's network section, as written, judges what the prose beside it says.
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const section = readme.slice(readme.indexOf('## The network: one policy'));
const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
const root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-readme-net-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));

it("the README's network section loads and decides as the README says", async () => {
  expect(yaml).toBeDefined();
  mkdirSync(join(root, 'ws'));
  mkdirSync(join(root, 'home'));
  const source = `rules:\n  - { pattern: "<workspace>/**", access: write }\n${yaml}`;
  const guard = createGuard({
    plugins: [shell(), folderRules({ file: join(root, 'ws', 'toolgate.yaml'), source })],
  });
  const ctx: CallContext = {
    sessionId: 's',
    agentId: 'a',
    cwd: join(root, 'ws'),
    workspace: join(root, 'ws'),
    home: join(root, 'home'),
    env: { PATH: '/usr/bin:/bin' },
  };
  const fetch = (url: string, method?: string) =>
    guard.check({ tool: 'WebFetch', args: { url, ...(method ? { method } : {}) } }, ctx, {
      resolvePrompts: false,
    });
  expect((await fetch('https://registry.npmjs.org/react')).action).toBe('allow');
  expect((await fetch('https://api.github.com/repos/o/r')).action).toBe('allow');
  expect((await fetch('https://wiki.internal.example.com/page')).action).toBe('allow');
  expect((await fetch('http://localhost:3000/')).action).toBe('allow');
  // a read-only rule: a POST there (curl -d) is not covered, so the default (prompt) decides
  const bash = (command: string) =>
    guard.check({ tool: 'Bash', args: { command } }, ctx, { resolvePrompts: false });
  expect((await bash('curl -s https://wiki.internal.example.com/page')).action).toBe('allow');
  expect((await bash('curl -s -d x=1 https://wiki.internal.example.com/page')).action).toBe('prompt');
  const denied = await fetch('http://10.1.2.3/');
  expect(denied.envelope).toMatchObject({ code: 'NETWORK_DENIED', host: '10.1.2.3' });
  // userinfo: the host after the @ is the one reached, and it is in no rule
  const userinfo = await fetch('http://registry.npmjs.org@evil.com/');
  expect(userinfo.action).toBe('prompt');
  expect(userinfo.network?.[0]?.host).toBe('evil.com');
  // a decimal address is the address it names
  expect((await fetch('http://2130706433/')).network?.[0]?.host).toBe('127.0.0.1');
  // and in a shell command, the same rules
  const curl = await bash('curl -s http://10.0.0.5/x');
  expect(curl.envelope).toMatchObject({ code: 'NETWORK_DENIED', host: '10.0.0.5' });
});
