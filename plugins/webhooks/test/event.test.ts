import type { GuardPlugin, Violation } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { renderBody, renderText, sampleEvent, violationEvent } from '../src/index.js';
import { context, createGuard, tempDir, workspacePolicy } from './helpers/guard.js';

function capture(): { plugin: GuardPlugin; seen: Violation[] } {
  const seen: Violation[] = [];
  return {
    seen,
    plugin: { name: 'capture', apply: (hooks) => hooks.onViolation.tap('c', (v) => void seen.push(v)) },
  };
}

describe('notification events', () => {
  it("a deny without any access (malformed call) has no path, and core's severity says medium", async () => {
    const tmp = tempDir();
    try {
      const { plugin, seen } = capture();
      const guard = createGuard({ plugins: [workspacePolicy(), plugin] });
      await guard.check({ tool: 'write_file', args: [] as never }, context(tmp.dir));
      const event = violationEvent(seen[0]!);
      expect(event).toMatchObject({
        code: 'INVALID_CALL',
        path: null,
        operation: 'write_file',
        severity: 'medium',
        user: 'user-123',
      });
    } finally {
      tmp.cleanup();
    }
  });

  it('reports the real path behind a symlink, the one the write would land on', async () => {
    const tmp = tempDir();
    try {
      const { symlinkSync } = await import('node:fs');
      const { join } = await import('node:path');
      symlinkSync('/etc', join(tmp.dir, 'etc-link'));
      const { plugin, seen } = capture();
      const guard = createGuard({ plugins: [workspacePolicy(), plugin] });
      await guard.check({ tool: 'write_file', args: { path: 'etc-link/passwd' } }, context(tmp.dir));
      expect(violationEvent(seen[0]!)).toMatchObject({ path: '/etc/passwd', severity: 'critical' });
    } finally {
      tmp.cleanup();
    }
  });

  it("caps model-written text, and every format stays inside its receiver's limits", async () => {
    const tmp = tempDir();
    try {
      const { plugin, seen } = capture();
      const guard = createGuard({ plugins: [workspacePolicy(), plugin] });
      const long = `/etc/${'x'.repeat(10_000)}`;
      await guard.check({ tool: 'write_file', args: { path: long } }, context(tmp.dir));
      const event = violationEvent(seen[0]!);
      expect(event.path!.length).toBeLessThanOrEqual(2_000);
      const discord = JSON.parse(renderBody(event, 'discord').body);
      expect(discord.content.length).toBeLessThanOrEqual(2_000);
      for (const f of discord.embeds[0].fields) expect(f.value.length).toBeLessThanOrEqual(1_024);
      const slack = JSON.parse(renderBody(event, 'slack').body);
      expect(slack.text.length).toBeLessThanOrEqual(3_000 * 5); // escaped entities may lengthen it
      for (const f of slack.blocks[1].fields) expect(f.text.length).toBeLessThanOrEqual(3_000);
    } finally {
      tmp.cleanup();
    }
  });

  it('an e-mail subject is one line even when the path carries a newline', () => {
    const { subject, text } = renderText({ ...sampleEvent(), path: '/etc/x\r\nBcc: victim@example.com' });
    expect(subject).not.toMatch(/[\r\n]/);
    expect(text).toContain('Path:      /etc/x');
  });
});
