import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approvals, busStrategy, queue } from '@toolgate/approvals';
import { type CallContext, createGuard, type GuardPlugin, isWithin } from '@toolgate/core';
import { redisApprovalBus, redisDesk, redisGrantStore } from '@toolgate/store-redis';
import { startRedis } from '../fleet/redisServer.js';
import { runInterleaved } from './harness.js';

// Writes under <workspace>/secrets need approval (the approvals bench's policy).
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
 * Issue 27's goal: an approval answered through Redis adds ≤ 5 ms at the median over one answered in
 * process. Both sides have an approver that answers the moment it sees the question: the in-process
 * `queue()`, and a `redisDesk` (its own connections, as a console would have) for `busStrategy` over
 * `redisApprovalBus` on a real redis-server on loopback. The third row adds the shared grant store
 * (`redisGrantStore`: the session is re-read before asking and saved after).
 */
export default async function (): Promise<void> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-bench-redis-')));
  const ws = join(root, 'ws');
  const secrets = join(ws, 'secrets');
  mkdirSync(secrets, { recursive: true });
  const redis = await startRedis();
  const bus = redisApprovalBus({ url: redis.url });
  const store = redisGrantStore({ url: redis.url });
  const desk = redisDesk({ url: redis.url });
  try {
    await desk.ready();
    desk.events$.subscribe((e) => {
      if (e.type === 'raised') void desk.respond(e.item.id, { approved: true, by: 'bench' });
    });
    const q = queue();
    q.requests$.subscribe((r) => q.respond(r.id, { approved: true }));
    const inProcess = createGuard({ plugins: [policy(secrets), approvals({ strategy: q })] });
    const viaRedis = createGuard({ plugins: [policy(secrets), approvals({ strategy: busStrategy(bus) })] });
    const viaRedisStore = createGuard({
      plugins: [policy(secrets), approvals({ strategy: busStrategy(bus), store })],
    });
    const ctx = (sessionId: string): CallContext => ({
      sessionId,
      agentId: 'a',
      cwd: ws,
      workspace: ws,
      home: root,
      env: {},
    });
    let n = 0;
    const call = () => ({ tool: 'write', args: { path: `secrets/f${n++}` } });
    // Each side must really be asked and approve, or the numbers measure something else.
    for (const [guard, session] of [
      [inProcess, 'q'],
      [viaRedis, 'r'],
      [viaRedisStore, 'rs'],
    ] as const) {
      const d = await guard.check(call(), ctx(session));
      if (d.action !== 'allow' || d.approval?.by === undefined)
        throw new Error(`bench setup: expected an approved call, got ${JSON.stringify(d.reasons)}`);
    }
    const results = await runInterleaved(
      'store-redis: an approval answered through Redis vs in process',
      [
        { name: 'queue() in process, answered at once', fn: () => inProcess.check(call(), ctx('q')) },
        { name: 'redisApprovalBus + redisDesk', fn: () => viaRedis.check(call(), ctx('r')) },
        {
          name: 'redisApprovalBus + redisDesk + redisGrantStore',
          fn: () => viaRedisStore.check(call(), ctx('rs')),
        },
      ],
      { rounds: 9, iterations: 100, warmup: 50 },
    );
    const base = results.get('queue() in process, answered at once')?.median ?? Number.NaN;
    for (const name of ['redisApprovalBus + redisDesk', 'redisApprovalBus + redisDesk + redisGrantStore']) {
      const added = ((results.get(name)?.median ?? Number.NaN) - base) / 1e6;
      console.log(`${name}: adds ${added.toFixed(2)} ms per approval at the median (goal ≤ 5 ms)`);
    }
  } finally {
    await Promise.all([bus.close(), store.close(), desk.close()]);
    await redis.stop();
    rmSync(root, { recursive: true, force: true });
  }
}
