import { type CallContext, createGuard } from '@toolgate/core';
import { folderRules, lint, loadPolicy } from '@toolgate/folder-rules';
import { describe, expect, it } from 'vitest';

// Seed 001 (Wunderland folder permissions), through the public API.
const HOME = '/home/user';
const ctxOf = (agentId: string): CallContext => ({
  sessionId: 's',
  agentId,
  cwd: `${HOME}/workspace`,
  workspace: `${HOME}/workspace`,
  home: HOME,
  env: { HOME },
});
const read = (path: string) => ({ tool: 'file_read', args: { path } });
const write = (path: string) => ({ tool: 'file_write', args: { file_path: path, content: '' } });
const guardOf = (json: unknown) =>
  createGuard({
    plugins: [
      folderRules({ dialect: 'wunderland', file: 'agent.config.json', source: JSON.stringify(json) }),
    ],
  });
const agentConfig = (extra: Record<string, unknown>) => ({
  seedId: 'seed_research_agent',
  security: {
    tier: 'balanced',
    folderPermissions: {
      defaultPolicy: 'deny',
      inheritFromTier: true,
      rules: [{ pattern: '~/workspace/**', read: true, write: true }],
    },
  },
  ...extra,
});

describe('seed 001: Wunderland', () => {
  it("\"fall back to the agent's permission set / tier filesystem flags when a path is unmatched and defaultPolicy='deny'\"", async () => {
    const ctx = ctxOf('a');
    // supervised: "filesystem read-only".
    const supervised = guardOf(agentConfig({ permissionSet: 'supervised' }));
    expect((await supervised.check(read('/data/x.csv'), ctx)).action).toBe('allow');
    expect((await supervised.check(write('/data/x.csv'), ctx)).action).toBe('deny');
    // autonomous: "filesystem read/write".
    const autonomous = guardOf(agentConfig({ permissionSet: 'autonomous' }));
    expect((await autonomous.check(write('/data/x.csv'), ctx)).action).toBe('allow');
    // minimal: "no filesystem".
    const minimal = guardOf(agentConfig({ permissionSet: 'minimal' }));
    expect((await minimal.check(read('/data/x.csv'), ctx)).action).toBe('deny');
    // No permissionSet: the tier's recommended one (balanced ⇒ supervised).
    const tierOnly = guardOf(agentConfig({}));
    expect((await tierOnly.check(read('/data/x.csv'), ctx)).action).toBe('allow');
    expect((await tierOnly.check(write('/data/x.csv'), ctx)).action).toBe('deny');
    // inheritFromTier: false inherits nothing, whatever the set says (seed Example 3).
    const secure = agentConfig({ permissionSet: 'autonomous' });
    (
      secure.security as { folderPermissions: { inheritFromTier: boolean } }
    ).folderPermissions.inheritFromTier = false;
    expect((await guardOf(secure).check(read('/data/x.csv'), ctx)).action).toBe('deny');
    // A matched rule still wins: a block is a block under any set.
    const blocked = agentConfig({ permissionSet: 'unrestricted' });
    (blocked.security as { folderPermissions: { rules: unknown[] } }).folderPermissions.rules.push({
      pattern: '!/etc/**',
      read: false,
      write: false,
    });
    expect((await guardOf(blocked).check(read('/etc/passwd'), ctx)).action).toBe('deny');
    expect(() => guardOf(agentConfig({ permissionSet: 'root' }))).toThrow(/permissionSet.*"root"/);
  });

  it('"guardrails.setFolderPermissions(\'agent-id\', config)": one guard, one file, a policy per agent', async () => {
    const guard = guardOf({
      defaultPolicy: 'deny',
      rules: [{ pattern: '/tmp/**', read: true, write: true }],
      agents: {
        'agent-research-bot': {
          defaultPolicy: 'deny',
          rules: [{ pattern: '~/Documents/research/**', read: true, write: false }],
        },
        'agent-support-bot': agentConfig({ permissionSet: 'minimal' }),
      },
    });
    const research = ctxOf('agent-research-bot');
    const support = ctxOf('agent-support-bot');
    const other = ctxOf('agent-unknown');
    expect((await guard.check(read(`${HOME}/Documents/research/p.pdf`), research)).action).toBe('allow');
    expect((await guard.check(read(`${HOME}/Documents/research/p.pdf`), support)).action).toBe('deny');
    expect((await guard.check(write(`${HOME}/workspace/a`), support)).action).toBe('allow');
    expect((await guard.check(write(`${HOME}/workspace/a`), research)).action).toBe('deny');
    // An agent the file does not name gets the global rules, never "no restrictions".
    expect((await guard.check(write('/tmp/x'), other)).action).toBe('allow');
    expect((await guard.check(read(`${HOME}/Documents/research/p.pdf`), other)).action).toBe('deny');
    // Where the host cannot vouch for the agent id (an MCP client names itself), `perAgent: false`: global.
    const globalOnly = createGuard({
      plugins: [
        folderRules({
          policy: loadPolicy({
            dialect: 'wunderland',
            file: 'a.json',
            source: JSON.stringify({
              defaultPolicy: 'deny',
              rules: [],
              agents: { wide: { defaultPolicy: 'allow' } },
            }),
          }),
          perAgent: false,
        }),
      ],
    });
    expect((await globalOnly.check(read('/etc/hosts'), ctxOf('wide'))).action).toBe('deny');
    // The same file with an explicit agent compiles that agent's policy alone.
    const one = loadPolicy({
      dialect: 'wunderland',
      file: 'a.json',
      source: JSON.stringify({ agents: { bot: { defaultPolicy: 'allow', rules: [] } } }),
      agent: 'bot',
    });
    expect(one.default).toEqual({ read: 'allow', write: 'allow' });
  });

  it('lint warns on a rule with read: false, write: true (no write-only access exists: it denies both)', async () => {
    const policy = loadPolicy({
      dialect: 'wunderland',
      file: 'w.json',
      source: JSON.stringify({
        defaultPolicy: 'deny',
        rules: [{ pattern: '/tmp/drop/**', read: false, write: true }],
      }),
    });
    const result = await lint(policy);
    expect(result.warnings.map((w) => w.code)).toContain('write-without-read');
    expect(result.warnings.find((w) => w.code === 'write-without-read')?.source).toMatch(/rules\[0\]/);
  });
});
