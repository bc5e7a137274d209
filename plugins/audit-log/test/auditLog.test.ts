import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGuard, DEFAULT_SEVERITY_RULES, type GuardPlugin } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { auditLog } from '../src/index.js';
import { approver, context, tempDir, workspacePolicy } from './helpers.js';

function lines(file: string): Array<Record<string, unknown>> {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('auditLog: what is recorded', () => {
  it('a deny is on disk before check() resolves, with every field of the issue', async () => {
    const root = tempDir();
    const file = join(root, 'log', 'violations.log');
    const audit = auditLog({ file, policyHash: 'sha256:abc' });
    const guard = createGuard({ plugins: [workspacePolicy(), audit] });
    const d = await guard.check(
      { tool: 'write_file', args: { path: '/etc/passwd', content: 'root::0:0' } },
      context(root, { agentId: 'agent-research-bot', sessionId: 'sess-9', userId: 'user-123' }),
    );
    expect(d.action).toBe('deny');
    const [r] = lines(file); // read synchronously, right after check() resolved
    expect(r).toMatchObject({
      level: 'SECURITY_VIOLATION',
      timestamp: new Date(d.time).toISOString(),
      decision: 'deny',
      decisionId: d.id,
      agentId: 'agent-research-bot',
      sessionId: 'sess-9',
      userId: 'user-123',
      toolId: 'write_file',
      operation: 'write',
      attemptedPath: '/etc/passwd',
      reason: 'path outside allowed scope',
      code: 'PATH_DENIED',
      plugin: 'ws-policy',
      severity: 'critical',
      policyHash: 'sha256:abc',
      rule: { pattern: '<workspace>/**', source: 'toolgate:/etc/toolgate/policy.yaml#rules[0]' },
      paths: [{ op: 'write', raw: '/etc/passwd', path: '/etc/passwd', realPath: '/etc/passwd' }],
    });
    expect(JSON.stringify(r)).not.toContain('root::0:0');
    expect(audit.counters.written).toBe(1);
  });

  it('raw and resolved paths both appear when a symlink redirects the write', async () => {
    const root = tempDir();
    symlinkSync('/etc', join(root, 'cfg'));
    const file = join(root, 'v.log');
    const guard = createGuard({ plugins: [workspacePolicy(), auditLog({ file })] });
    await guard.check({ tool: 'write_file', args: { path: 'cfg/shadow' } }, context(root));
    const [r] = lines(file);
    expect(r!.attemptedPath).toBe('/etc/shadow');
    expect(r!.paths).toEqual([
      expect.objectContaining({ raw: 'cfg/shadow', path: join(root, 'cfg/shadow'), realPath: '/etc/shadow' }),
    ]);
    expect(r!.severity).toBe('critical');
  });

  it("seed 001's example lines are produced field-for-field with format 'seed'", async () => {
    const root = tempDir();
    const file = join(root, 'violations.log');
    const guard = createGuard({
      plugins: [
        {
          name: 'seed-policy',
          policy: true,
          apply(hooks) {
            hooks.collectAccesses.tap('x', (a, call, state) => [
              ...a,
              state.access(
                String(call.args.path ?? call.args.command),
                call.tool === 'file_write' ? 'write' : 'read',
                { origin: 'args' },
              ),
            ]);
            hooks.beforeToolCall.tap('x', (call) => ({
              action: 'deny',
              code: 'PATH_DENIED',
              reason:
                call.tool === 'file_write'
                  ? 'Path /etc not in allowed folders'
                  : 'CLI execution not permitted',
            }));
          },
        },
        auditLog({ file, format: 'seed', chain: false }),
      ],
    });
    await guard.check(
      { tool: 'file_write', args: { path: '/etc/passwd' } },
      context(root, { agentId: 'agent-research-bot' }),
    );
    await guard.check(
      { tool: 'shell_execute', args: { command: '/usr/bin/sudo' } },
      context(root, { agentId: 'agent-support-bot' }),
    );
    const seed = [
      '{"timestamp":"2026-02-09T10:30:00Z","level":"SECURITY_VIOLATION","agentId":"agent-research-bot","toolId":"file_write","operation":"file_write","attemptedPath":"/etc/passwd","reason":"Path /etc not in allowed folders","severity":"critical"}',
      '{"timestamp":"2026-02-09T10:31:15Z","level":"SECURITY_VIOLATION","agentId":"agent-support-bot","toolId":"shell_execute","operation":"shell_execute","attemptedPath":"/usr/bin/sudo","reason":"CLI execution not permitted","severity":"high"}',
    ].map((l) => JSON.parse(l) as Record<string, unknown>);
    const got = lines(file);
    expect(got).toHaveLength(2);
    got.forEach((r, i) => {
      expect(Object.keys(r).sort()).toEqual(Object.keys(seed[i]!).sort());
      expect(Number.isFinite(Date.parse(r.timestamp as string))).toBe(true);
      expect({ ...r, timestamp: 'T' }).toEqual({ ...seed[i], timestamp: 'T' });
    });
  });

  it("level 'violations' records denies only; level 'all' records allows and prompts as DECISION", async () => {
    const root = tempDir();
    const only = join(root, 'only.log');
    const all = join(root, 'all.log');
    const guard = createGuard({
      plugins: [
        workspacePolicy(),
        auditLog({ file: only }),
        { ...auditLog({ file: all, level: 'all' }), name: 'audit-all' },
      ],
    });
    const ctx = context(root);
    await guard.check({ tool: 'write_file', args: { path: join(root, 'ok.txt') } }, ctx);
    await guard.check({ tool: 'write_file', args: { path: join(root, 'ask', 'x') } }, ctx, {
      resolvePrompts: false,
    });
    await guard.check({ tool: 'read_file', args: { path: '/var/log/syslog' } }, ctx);
    expect(lines(only).map((r) => r.decision)).toEqual(['deny']);
    expect(lines(all).map((r) => [r.level, r.decision])).toEqual([
      ['DECISION', 'allow'],
      ['DECISION', 'prompt'],
      ['SECURITY_VIOLATION', 'deny'],
    ]);
    expect(lines(all)[2]!.severity).toBe('high');
    expect(lines(all)[1]).toMatchObject({ code: 'PATH_PROMPT', severity: 'medium' });
  });

  it('a denied approval is a violation; a wild-mode approval is recorded whatever the level', async () => {
    const root = tempDir();
    const denied = join(root, 'denied.log');
    const wild = join(root, 'wild.log');
    const ctx = context(root);
    const g1 = createGuard({
      plugins: [workspacePolicy(), approver(false, 'tty'), auditLog({ file: denied })],
    });
    await g1.check({ tool: 'write_file', args: { path: join(root, 'ask', 'a') } }, ctx);
    expect(lines(denied)).toEqual([
      expect.objectContaining({
        level: 'SECURITY_VIOLATION',
        decision: 'deny',
        code: 'PROMPT_DENIED',
        approval: { approved: false, by: 'tty', reason: 'refused' },
      }),
    ]);
    const g2 = createGuard({
      plugins: [workspacePolicy(), approver(true, 'wild-mode'), auditLog({ file: wild })],
    });
    await g2.check({ tool: 'write_file', args: { path: join(root, 'ask', 'b') } }, ctx);
    await g2.check({ tool: 'write_file', args: { path: join(root, 'plain') } }, ctx);
    expect(lines(wild)).toEqual([
      expect.objectContaining({
        level: 'DECISION',
        decision: 'allow',
        approval: { approved: true, by: 'wild-mode', reason: 'ok' },
      }),
    ]);
  });

  it('custom severity rules replace the defaults (spread them to extend)', async () => {
    const root = tempDir();
    const file = join(root, 'v.log');
    const rules = [...DEFAULT_SEVERITY_RULES, { severity: 'critical' as const, component: 'prod-secrets' }];
    const guard = createGuard({ plugins: [workspacePolicy(), auditLog({ file, severityRules: rules })] });
    await guard.check({ tool: 'read_file', args: { path: '/srv/prod-secrets/db' } }, context(root));
    await guard.check({ tool: 'read_file', args: { path: '/etcetera/x' } }, context(root));
    expect(lines(file).map((r) => r.severity)).toEqual(['critical', 'low']);
  });

  it('a failing policyHash function never breaks the record', async () => {
    const root = tempDir();
    const file = join(root, 'v.log');
    const guard = createGuard({
      plugins: [
        workspacePolicy(),
        auditLog({
          file,
          policyHash: () => {
            throw new Error('reload in progress');
          },
        }),
      ],
    });
    await guard.check({ tool: 'write_file', args: { path: '/etc/x' } }, context(root));
    expect(lines(file)[0]).not.toHaveProperty('policyHash');
  });
});

describe('auditLog: options fail at construction, naming field and value', () => {
  const root = tempDir();
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ level: 'everything' }, /option level must be "violations" or "all", got "everything"/],
    [{ durability: 'eventually' }, /option durability must be .*got "eventually"/],
    [{ maxSize: 10 }, /option maxSize must be an integer ≥ 1024, got 10/],
    [{ keep: -1 }, /option keep must be an integer ≥ 0, got -1/],
    [{ file: root }, /option file must be a file, not a directory/],
    [{ severityRules: [{ severity: 'severe', under: '/x' }] }, /severityRules\[0\]\.severity .*got "severe"/],
    [
      { severityRules: [{ severity: 'high', under: 'rel' }] },
      /severityRules\[0\]\.under must be an absolute path, got "rel"/,
    ],
    [{ redact: { keys: 'password' } }, /option redact\.keys must be an array/],
    [{ ship: [{}] }, /option ship\[0\] must be a pino destination/],
    [{ colour: true }, /option colour must be one of/],
  ];
  for (const [options, message] of cases) {
    it(JSON.stringify(options).replace(root, '<dir>'), () => {
      expect(() => auditLog({ file: join(root, 'v.log'), ...options })).toThrow(message);
    });
  }
  it('a file path is not required to exist yet', () => {
    writeFileSync(join(root, 'exists.log'), '');
    expect(auditLog({ file: join(root, 'new', 'deep', 'v.log') }).file).toBe(
      join(root, 'new', 'deep', 'v.log'),
    );
  });
});

describe('auditLog: every kind of deny is on record', () => {
  it('malformed calls, uncertain paths and plugin errors are violations with their codes', async () => {
    const root = tempDir();
    const file = join(root, 'v.log');
    const broken: GuardPlugin = {
      name: 'broken',
      apply(hooks) {
        hooks.beforeToolCall.tap('x', (call) => {
          if (call.tool === 'explode') throw new Error('policy bug');
          return undefined;
        });
      },
    };
    const guard = createGuard({ plugins: [workspacePolicy(), broken, auditLog({ file })] });
    const ctx = context(root);
    await guard.check(null as unknown as { tool: string; args: Record<string, unknown> }, ctx);
    await guard.check({ tool: 'write_file', args: { path: '$UNSET_VAR/x' } }, ctx);
    await guard.check({ tool: 'explode', args: {} }, ctx);
    expect(lines(file).map((r) => [r.code, r.decision])).toEqual([
      ['INVALID_CALL', 'deny'],
      ['PATH_UNCERTAIN', 'deny'],
      ['PLUGIN_ERROR', 'deny'],
    ]);
    expect(lines(file)[1]).toMatchObject({
      plugin: 'core',
      paths: [expect.objectContaining({ raw: '$UNSET_VAR/x', realPath: null })],
    });
  });
});
