import { afterEach, describe, expect, it } from 'vitest';
import { readDeadLetters, webhooks } from '../src/index.js';
import { context, createGuard, tempDir, workspacePolicy } from './helpers/guard.js';
import { startSmtp } from './helpers/smtp.js';

const FAST = { baseDelayMs: 20, maxDelayMs: 100, timeoutMs: 2_000, maxAttempts: 4 };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(auth?: { user: string; pass: string }) {
  const tmp = tempDir();
  const smtp = await startSmtp(auth);
  const plugin = webhooks({
    emailConfig: {
      to: ['security@example.com', 'oncall@example.com'],
      from: 'toolgate@example.com',
      smtpHost: '127.0.0.1',
      smtpPort: smtp.port,
      ...(auth ? { smtpUser: auth.user, smtpPass: auth.pass } : {}),
    },
    outboxDir: tmp.dir,
    retry: FAST,
    env: {},
  });
  cleanups.push(
    tmp.cleanup,
    () => smtp.close(),
    () => plugin.close(),
  );
  const guard = createGuard({ plugins: [workspacePolicy(), plugin] });
  return { smtp, plugin, guard, ctx: context(tmp.dir), tmp };
}

describe('e-mail over SMTP (seed 001 emailConfig)', () => {
  it('mails a critical violation to every recipient, authenticated, with the delivery id header', async () => {
    const { smtp, plugin, guard, ctx } = await setup({ user: 'smtp-user', pass: 'smtp-pass' });
    const decision = await guard.check({ tool: 'file_write', args: { path: '/etc/shadow' } }, ctx);
    expect(await plugin.flush(5_000)).toBe(true);
    expect(smtp.mails).toHaveLength(1);
    const [mail] = smtp.mails;
    expect(mail!.user).toBe('smtp-user');
    expect(mail!.from).toBe('toolgate@example.com');
    expect(mail!.to).toEqual(['security@example.com', 'oncall@example.com']);
    expect(mail!.raw).toMatch(/^Subject: \[toolgate critical\] blocked: file_write \/etc\/shadow/m);
    expect(mail!.raw).toMatch(/^X-Toolgate-Delivery: [0-9a-f-]{36}/m);
    expect(mail!.raw).toContain(`Decision:  ${decision.id}`);
    expect(mail!.raw).toContain('Reason:    path outside allowed scope');
  });

  it('applies the same severity threshold (default high): a medium violation is not mailed', async () => {
    const { smtp, plugin, guard, ctx, tmp } = await setup();
    await guard.check({ tool: 'file_write', args: { path: `${tmp.dir}-elsewhere/x.txt` } }, ctx);
    await guard.check({ tool: 'read_file', args: { path: '/root/.bashrc' } }, ctx);
    expect(await plugin.flush(5_000)).toBe(true);
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0]!.raw).toContain('/root/.bashrc');
  });

  it('retries a temporary 451 and dead-letters a permanent 550', async () => {
    const { smtp, plugin, guard, ctx } = await setup();
    smtp.rejects.push(451, 0, 550);
    await guard.check({ tool: 'file_write', args: { path: '/etc/one' } }, ctx);
    await guard.check({ tool: 'file_write', args: { path: '/etc/two' } }, ctx);
    expect(await plugin.flush(5_000)).toBe(true);
    // one: 451 then accepted on retry. two: 550, not retried.
    expect(smtp.mails.map((m) => /Path: +(\S+)/.exec(m.raw)?.[1])).toEqual(['/etc/one']);
    const letters = await readDeadLetters(plugin.deadLetterFile);
    expect(letters).toEqual([expect.objectContaining({ reason: 'rejected', attempts: 1 })]);
    expect(letters[0]!.event.path).toBe('/etc/two');
    expect(plugin.stats()).toMatchObject({ delivered: 1, retried: 1, deadLettered: 1 });
  });

  it('refused authentication is permanent (535): dead-lettered, not retried forever', async () => {
    const tmp = tempDir();
    const smtp = await startSmtp({ user: 'u', pass: 'right' });
    const plugin = webhooks({
      emailConfig: {
        to: 'a@example.com',
        from: 'b@example.com',
        smtpHost: '127.0.0.1',
        smtpPort: smtp.port,
        smtpUser: 'u',
        smtpPass: 'wrong',
      },
      outboxDir: tmp.dir,
      retry: FAST,
      env: {},
    });
    cleanups.push(
      tmp.cleanup,
      () => smtp.close(),
      () => plugin.close(),
    );
    const { sampleEvent } = await import('../src/index.js');
    plugin.notify(sampleEvent());
    expect(await plugin.flush(5_000)).toBe(true);
    expect(smtp.mails).toHaveLength(0);
    expect(plugin.stats()).toMatchObject({ deadLettered: 1, retried: 0 });
  });
});
