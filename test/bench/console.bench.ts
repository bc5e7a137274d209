import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decisionStream, startConsole } from '@toolgate/console';
import { type CallContext, createGuard, type GuardPlugin } from '@toolgate/core';
import { folderRules } from '@toolgate/folder-rules';

// Issue 27: "the console's live stream keeps up with 1,000 decisions/s from the gateway without slowing a
// decision (≤ 1.1×)". Two guards with the same real policy: one plain, one with the console's decision
// stream attached, the console serving it and a browser-like SSE client reading it (plus one stalled client
// that never reads, the worst neighbour a stream can have). Calls are paced at 1,000/s, in alternating
// blocks, and each decision is timed on its own; the ratio of the medians is the number to read.
const RATE = 1000;
const BLOCK = 250;
const ROUNDS = 20;

// The SSE client: reads the stream, parses every event, prints its running count.
const READER = `
const [url, token] = process.argv.slice(1);
const res = await fetch(url, { headers: { authorization: 'Bearer ' + token } });
const decoder = new TextDecoder();
let buf = '', received = 0, dropped = 0;
for await (const chunk of res.body) {
  buf += decoder.decode(chunk, { stream: true });
  let end;
  while ((end = buf.indexOf('\\n\\n')) !== -1) {
    const event = buf.slice(0, end);
    buf = buf.slice(end + 2);
    const data = /^data: (.*)$/m.exec(event)?.[1];
    if (data && event.startsWith('event: decisions')) {
      const m = JSON.parse(data);
      received += m.batch.length;
      dropped += m.dropped;
      process.stdout.write(JSON.stringify({ received, dropped }) + '\\n');
    }
  }
}
`;

async function paced(check: () => Promise<unknown>, n: number, out: number[]): Promise<void> {
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const due = start + (i * 1000) / RATE;
    const now = performance.now();
    if (due - now >= 1) await new Promise((r) => setTimeout(r, due - now));
    const t = process.hrtime.bigint();
    await check();
    out.push(Number(process.hrtime.bigint() - t));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)]!;

export default async function consoleBench(): Promise<void> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-bench-console-')));
  const ws = join(root, 'ws');
  mkdirSync(join(ws, 'src'), { recursive: true });
  const ctx: CallContext = { sessionId: 's', agentId: 'bench', cwd: ws, workspace: ws, home: root, env: {} };
  const rules = {
    rules: [{ pattern: '<workspace>/**', access: 'write' as const }],
    default: 'deny' as const,
  };
  const plain = createGuard({ plugins: [folderRules(rules)] });
  const stream = decisionStream();
  const streamed = createGuard({ plugins: [folderRules(rules), stream] });
  const noop: GuardPlugin = {
    name: 'noop-observer',
    apply(hooks) {
      hooks.onDecision.tap({ stage: 2_000 }, () => undefined);
    },
  };
  const observed = createGuard({ plugins: [folderRules(rules), noop] });
  const web = await startConsole({ decisions: stream });
  const auth = { authorization: `Bearer ${web.token}` };
  // The reading client is another process, as a browser would be: its parsing is not the gateway's work.
  const reader = spawn(
    process.execPath,
    ['--input-type=module', '-e', READER, `${web.url}/api/events?view=decisions`, web.token],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let last = { received: 0, dropped: 0 };
  reader.stdout.on('data', (d: Buffer) => {
    const line = d.toString().trim().split('\n').at(-1);
    if (line) last = JSON.parse(line) as typeof last;
  });
  await new Promise((r) => setTimeout(r, 500));
  // A client that connects and never reads: its socket fills, the console drops for it.
  const stalled = new AbortController();
  const stalledRes = await fetch(`${web.url}/api/events?view=decisions`, {
    headers: auth,
    signal: stalled.signal,
  });
  void stalledRes;

  const calls = Array.from({ length: 64 }, (_, i) => ({
    tool: 'read_file',
    args: { path: join(ws, 'src', `f${i}.ts`) },
  }));
  let k = 0;
  const next = () => calls[k++ % calls.length]!;
  const cases = {
    plain: (c: ReturnType<typeof next>) => plain.check(c, ctx),
    observer: (c: ReturnType<typeof next>) => observed.check(c, ctx),
    streamed: (c: ReturnType<typeof next>) => streamed.check(c, ctx),
  };
  type Name = keyof typeof cases;
  const names = Object.keys(cases) as Name[];
  const times: Record<Name, number[]> = { plain: [], observer: [], streamed: [] };
  try {
    for (const n of names) await paced(() => cases[n](next()), 200, []);
    await new Promise((r) => setTimeout(r, 600));
    const before = last.received;
    let sent = 0;
    const vsPlain: number[] = [];
    const vsObserver: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const round: Record<Name, number[]> = { plain: [], observer: [], streamed: [] };
      // The order rotates from round to round, so no case always follows the same one.
      for (let j = 0; j < names.length; j++) {
        const n = names[(r + j) % names.length]!;
        await paced(() => cases[n](next()), BLOCK, round[n]);
        times[n].push(...round[n]);
      }
      sent += BLOCK;
      vsPlain.push(median(round.streamed) / median(round.plain));
      vsObserver.push(median(round.streamed) / median(round.observer));
    }
    await new Promise((r) => setTimeout(r, 600));
    const got = last.received - before;
    const row = (name: string, xs: number[]) => ({
      case: name,
      'median ns': Math.round(median(xs)),
      'p99 ns': Math.round(p99(xs)),
    });
    console.log(
      `\n## console: decisions at ${RATE}/s with the live stream attached (${ROUNDS} rounds × ${BLOCK} each)`,
    );
    console.table([
      row('decision, no observer', times.plain),
      row('decision, one no-op onDecision tap (what core charges any observer)', times.observer),
      row('decision, console stream + SSE client + stalled client', times.streamed),
    ]);
    console.log(
      `console vs none: ${median(vsPlain).toFixed(3)}× (median of per-round ratios; overall medians ${(median(times.streamed) / median(times.plain)).toFixed(3)}×) — goal ≤ 1.1×`,
    );
    console.log(
      `console vs a no-op observer: ${median(vsObserver).toFixed(3)}× (overall medians ${(median(times.streamed) / median(times.observer)).toFixed(3)}×)`,
    );
    console.log(
      `SSE client received ${got} of ${sent} streamed decisions (${last.dropped} reported dropped)`,
    );
  } finally {
    reader.kill();
    stalled.abort();
    await web.close();
    stream.close();
    rmSync(root, { recursive: true, force: true });
  }
}
