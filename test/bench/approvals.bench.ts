import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approvals, autoAllow, queue } from '@toolgate/approvals';
import { type CallContext, createGuard, type GuardPlugin, isWithin } from '@toolgate/core';
import { runSuite } from './harness.js';

// A minimal real policy: writes under <workspace>/secrets need approval; everything else is allowed.
const policy = (secrets: string): GuardPlugin => ({
  name: 'bench-policy',
  policy: true,
  apply(hooks) {
    hooks.collectAccesses.tap('x', (accesses, call, state) => [
      ...accesses,
      state.access(String(call.args.path), 'write', { origin: 'args.path' }),
    ]);
    hooks.beforeToolCall.tap('x', (_call, state) => {
      const a = state.accesses[0];
      if (a && a.realPath !== null && isWithin(a.realPath, secrets))
        state.prompt({ code: 'PATH_PROMPT', reason: 'needs approval', access: a });
      return undefined;
    });
  },
});

/**
 * What approvals add to a decision: a call answered from a standing session grant (the common case once a
 * human said `a`), a call asked of a strategy that answers at once, and a plain allow for reference.
 */
export default async function (): Promise<void> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-bench-approvals-')));
  const ws = join(root, 'ws');
  const secrets = join(ws, 'secrets');
  mkdirSync(join(secrets, 'deep'), { recursive: true });
  const ctx: CallContext = { sessionId: 'bench', agentId: 'a', cwd: ws, workspace: ws, home: root, env: {} };
  try {
    const granted = createGuard({
      plugins: [policy(secrets), approvals({ strategy: autoAllow({ grant: 'subtree' }) })],
    });
    await granted.check({ tool: 'write', args: { path: 'secrets/first' } }, ctx); // creates the subtree grant
    const asked = createGuard({ plugins: [policy(secrets), approvals({ strategy: autoAllow() })] });
    const q = queue();
    q.requests$.subscribe((r) => q.respond(r.id, { approved: true }));
    const viaQueue = createGuard({ plugins: [policy(secrets), approvals({ strategy: q })] });
    // 20 grants in the session, the covering one last: the scan is linear in the session's grants.
    const many = createGuard({
      plugins: [policy(secrets), approvals({ strategy: autoAllow({ grant: 'directory' }) })],
    });
    for (let i = 0; i < 20; i++) {
      mkdirSync(join(secrets, `d${i}`), { recursive: true });
      await many.check({ tool: 'write', args: { path: `secrets/d${i}/f` } }, ctx);
    }
    // The floor set by core's onPrompt machinery: one tap that approves at once, no grants, no session state.
    const floor = createGuard({
      plugins: [
        policy(secrets),
        {
          name: 'trivial-approver',
          apply(hooks) {
            hooks.onPrompt.tapPromise({}, async () => ({ approved: true }));
          },
        },
      ],
    });
    const medians = await runSuite('approvals: cost of a prompt-tier decision', [
      {
        name: 'allow (no prompt, reference)',
        fn: () => granted.check({ tool: 'write', args: { path: 'notes.txt' } }, ctx),
      },
      {
        name: 'prompt answered by a trivial onPrompt tap (core floor)',
        fn: () => floor.check({ tool: 'write', args: { path: 'secrets/deep/x' } }, ctx),
      },
      {
        name: 'prompt answered by a session grant',
        fn: () => granted.check({ tool: 'write', args: { path: 'secrets/deep/x' } }, ctx),
      },
      {
        name: 'prompt answered by grant #20 of 20',
        fn: () => many.check({ tool: 'write', args: { path: 'secrets/d19/g' } }, ctx),
      },
      {
        name: 'prompt asked of autoAllow (once)',
        fn: () => asked.check({ tool: 'write', args: { path: 'secrets/deep/x' } }, ctx),
      },
      {
        name: 'prompt asked of queue (answered at once)',
        fn: () => viaQueue.check({ tool: 'write', args: { path: 'secrets/deep/x' } }, ctx),
      },
    ]);
    const base = medians.get('allow (no prompt, reference)') ?? Number.NaN;
    const grant = medians.get('prompt answered by a session grant') ?? Number.NaN;
    const core = medians.get('prompt answered by a trivial onPrompt tap (core floor)') ?? Number.NaN;
    console.log(
      `grant-answered prompt overhead over a plain allow: ${Math.round(grant - base)} ns/op (median)`,
    );
    console.log(`of which above core's own onPrompt floor: ${Math.round(grant - core)} ns/op (median)`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
