import { createGuard, ToolCallRejectedError } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { call, ctx, denyUnder, pathExtractor, plugin } from './helpers.js';

describe('rejection envelope', () => {
  it('has the documented shape, and redacted disclosure hides the allowed roots', async () => {
    const full = await createGuard({ plugins: [pathExtractor(), denyUnder('/home/u/.ssh')] }).check(
      call('file_write', { path: '~/.ssh/id_rsa' }),
      ctx(),
    );
    expect(full.envelope).toEqual({
      error: 'Tool call rejected: under /home/u/.ssh',
      code: 'PATH_DENIED',
      tool_name: 'file_write',
      path: '/home/u/.ssh/id_rsa',
      operation: 'read',
      allowed_paths: ['/ws'],
      hint: 'Use a path under one of the allowed roots, or ask the user.',
      decision_id: full.id,
    });
    const redacted = await createGuard({
      plugins: [pathExtractor(), denyUnder('/home/u/.ssh')],
      disclosure: 'redacted',
    }).check(call('file_write', { path: '~/.ssh/id_rsa' }), ctx());
    expect(redacted.envelope).not.toHaveProperty('allowed_paths');
    expect(JSON.stringify(redacted.envelope)).not.toContain('/ws"');
  });

  it('decisions are frozen', async () => {
    const d = await createGuard({ plugins: [pathExtractor(), denyUnder('/etc')] }).check(
      call('read_file', { path: '/etc/hosts' }),
      ctx(),
    );
    expect(Object.isFrozen(d)).toBe(true);
    expect(Object.isFrozen(d.reasons)).toBe(true);
    expect(Object.isFrozen(d.accesses[0])).toBe(true);
  });
});

describe('guard.wrap', () => {
  const guard = () => createGuard({ plugins: [pathExtractor(), denyUnder('/etc')] });

  it('runs the tool only when allowed and returns the envelope otherwise', async () => {
    let runs = 0;
    const read = guard().wrap('read_file', (args: { path: string }) => {
      runs++;
      return `contents of ${args.path}`;
    });
    expect(await read({ path: '/ws/a' }, ctx())).toBe('contents of /ws/a');
    const denied = await read({ path: '/etc/shadow' }, ctx());
    expect(denied).toMatchObject({ code: 'PATH_DENIED', tool_name: 'read_file' });
    expect(runs).toBe(1);
  });

  it('throws a ToolCallRejectedError carrying the envelope when asked to', async () => {
    const read = guard().wrap('read_file', () => 'never', { onDeny: 'throw' });
    const error = await read({ path: '/etc/shadow' }, ctx()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolCallRejectedError);
    expect((error as ToolCallRejectedError).envelope.code).toBe('PATH_DENIED');
  });

  it('a session-bound guard wraps with its own context and reports to afterToolCall', async () => {
    const seen: unknown[] = [];
    const g = createGuard({
      plugins: [
        pathExtractor(),
        denyUnder('/etc'),
        plugin('after', (h) => h.afterToolCall.tap('x', (r) => void seen.push(r.result))),
      ],
    });
    const s = g.session(ctx({ sessionId: 'bound', cwd: '/ws/sub' }));
    const read = s.wrap('read_file', (args: { path: string }, c) => `${c.sessionId}:${args.path}`);
    expect(await read({ path: 'x' })).toBe('bound:x');
    expect(seen).toEqual(['bound:x']);
  });

  it('rejects a bad tool name or function at wrap time', () => {
    expect(() => guard().wrap('', () => 1)).toThrow(/tool name/);
    expect(() => guard().wrap('x', 5 as never)).toThrow(/function/);
  });
});

describe('guard.describeTools', () => {
  it('runs the describeTools waterfall on copies, and a failing plugin leaves the list unchanged', () => {
    const tools = [
      { name: 'read_file', description: 'Read a file' },
      { name: 'write_file', description: 'Write' },
    ];
    const g = createGuard({
      plugins: [
        plugin('hide-writes', (h) =>
          h.describeTools.tap('x', (ts) => ts.filter((t) => !t.name.startsWith('write'))),
        ),
      ],
    });
    expect(g.describeTools(tools).map((t) => t.name)).toEqual(['read_file']);
    expect(tools).toHaveLength(2);
    const broken = createGuard({
      plugins: [plugin('broken', (h) => h.describeTools.tap('x', () => 'nope' as never))],
    });
    const errors: unknown[] = [];
    broken.events.on('plugin-error', (e) => errors.push(e));
    expect(broken.describeTools(tools)).toEqual(tools);
    expect(errors).toHaveLength(1);
  });
});
