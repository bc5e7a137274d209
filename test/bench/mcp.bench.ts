import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createGuard } from '@toolgate/core';
import { folderRules } from '@toolgate/folder-rules';
import { createGateway, requireAbsolutePaths } from '@toolgate/mcp';
import { runSuite } from './harness.js';

const FILESYSTEM_SERVER = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-filesystem/dist/index.js',
);
/** The built CLI (`pnpm run build`): the `toolgate mcp` process row runs what users run. */
const CLI = fileURLToPath(new URL('../../packages/cli/bin/toolgate.cjs', import.meta.url));

// A realistic small policy (folder-rules, native rules) plus the gateway's absolute-path rule.
const guardFor = () =>
  createGuard({
    plugins: [
      folderRules({
        default: 'deny',
        rules: [
          { pattern: '<workspace>/**', access: 'write' },
          { pattern: '**/.env', access: 'deny' },
          { pattern: '~/.ssh/**', access: 'deny' },
        ],
      }),
      requireAbsolutePaths(),
    ],
  });

/**
 * What the gateway adds to a tools/call round trip. (1) In-process server: the client talks to an SDK
 * McpServer directly, or through the gateway (the same in-memory transport on each side): the difference is
 * the gateway's own cost (guard.check with folder-rules + one extra relay). (2) The real filesystem server
 * as a child process, called directly and through the gateway.
 */
export default async function mcpBench(): Promise<void> {
  const root = realpathSync.native(mkdtempSync(join(tmpdir(), 'tg-mcp-bench-')));
  const ws = join(root, 'ws');
  mkdirSync(ws);
  writeFileSync(join(ws, 'hello.txt'), 'hello\n');
  const policy = join(root, 'policy.yaml');
  writeFileSync(
    policy,
    [
      'default: deny',
      'rules:',
      '  - { pattern: "<workspace>/**", access: write }',
      '  - { pattern: "**/.env", access: deny }',
      '  - { pattern: "~/.ssh/**", access: deny }',
      '',
    ].join('\n'),
  );
  const ctx = { sessionId: 'bench', agentId: 'bench', cwd: ws, workspace: ws, home: root, env: {} };
  const readCall = { name: 'read_text_file', arguments: { path: join(ws, 'hello.txt') } };
  const deniedCall = { name: 'read_text_file', arguments: { path: join(ws, '.env') } };
  const closers: Array<() => Promise<void>> = [];
  try {
    const inProcessServer = async () => {
      const server = new McpServer({ name: 'echo', version: '1' });
      server.registerTool(
        'read_text_file',
        { description: 'reads', annotations: { readOnlyHint: true } },
        () => ({ content: [{ type: 'text', text: 'hello' }] }),
      );
      const [a, b] = InMemoryTransport.createLinkedPair();
      await server.connect(b);
      closers.push(() => server.close());
      return a;
    };
    const direct = new Client({ name: 'bench', version: '1' });
    await direct.connect(await inProcessServer());
    const [clientSide, gatewaySide] = InMemoryTransport.createLinkedPair();
    const gateway = createGateway({
      guard: guardFor(),
      ctx,
      upstream: await inProcessServer(),
      onError: () => {},
    });
    await gateway.connect(gatewaySide);
    const guarded = new Client({ name: 'bench', version: '1' });
    await guarded.connect(clientSide);
    closers.push(
      () => direct.close(),
      () => guarded.close(),
      () => gateway.close(),
    );
    const inProc = await runSuite(
      'mcp: gateway added latency, in-process server (median ns per tools/call round trip)',
      [
        { name: 'direct: client → server', fn: () => direct.callTool(readCall) },
        { name: 'gateway: client → gateway → server (allowed)', fn: () => guarded.callTool(readCall) },
        { name: 'gateway: denied (answered by the gateway)', fn: () => guarded.callTool(deniedCall) },
      ],
      1000,
    );
    const added =
      (inProc.get('gateway: client → gateway → server (allowed)') ?? 0) -
      (inProc.get('direct: client → server') ?? 0);
    console.log(
      `gateway added latency, in-process server: ${(added / 1e6).toFixed(4)} ms median per call (goal ≤ 0.1 ms)`,
    );

    await judgingAlone(ctx, readCall);

    const args = [FILESYSTEM_SERVER, ws];
    const fsDirect = new Client({ name: 'bench', version: '1' });
    await fsDirect.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }));
    const [c2, g2] = InMemoryTransport.createLinkedPair();
    const fsGateway = createGateway({
      guard: guardFor(),
      ctx,
      upstream: { command: process.execPath, args, stderr: 'ignore' },
      onError: () => {},
    });
    await fsGateway.connect(g2);
    const fsGuarded = new Client({ name: 'bench', version: '1' });
    await fsGuarded.connect(c2);
    closers.push(
      () => fsDirect.close(),
      () => fsGuarded.close(),
      () => fsGateway.close(),
    );
    // The same gateway whose guard answers a decision computed once: what the relay itself costs, apart from
    // judging (bench only — the real gateway decides every call).
    const realGuard = guardFor();
    const allow = await realGuard.check({ tool: readCall.name, args: readCall.arguments }, ctx);
    const [c3, g3] = InMemoryTransport.createLinkedPair();
    const relayGateway = createGateway({
      guard: Object.assign(Object.create(realGuard) as typeof realGuard, { check: async () => allow }),
      ctx,
      upstream: { command: process.execPath, args, stderr: 'ignore' },
      onError: () => {},
    });
    await relayGateway.connect(g3);
    const fsRelay = new Client({ name: 'bench', version: '1' });
    await fsRelay.connect(c3);
    closers.push(
      () => fsRelay.close(),
      () => relayGateway.close(),
    );
    // The same gateway as a process: the client spawns `toolgate mcp -- node server-filesystem ws` (the
    // built CLI; two stdio hops instead of one).
    const fsProcess = new Client({ name: 'bench', version: '1' });
    await fsProcess.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp', '--dialect', 'toolgate', '--policy', policy, '--cwd', ws, '--', ...args],
        env: { PATH: process.env.PATH ?? '', HOME: root, TOOLGATE_CACHE: 'off' },
        stderr: 'ignore',
      }),
    );
    closers.push(() => fsProcess.close());
    // Interleaved samples: the children share the machine's drift (CPU frequency, GC), which separate
    // tinybench windows do not, so the ratio of medians is the gateway's, not the clock's.
    const rows: Array<[string, Client, number[]]> = [
      ['direct: client → child', fsDirect, []],
      ['gateway in process: client → createGateway → child', fsGuarded, []],
      ['gateway process: client → toolgate mcp → child', fsProcess, []],
      ['relay only: createGateway, decision precomputed', fsRelay, []],
    ];
    for (let i = 0; i < 300; i++) for (const [, c] of rows) await c.callTool(readCall);
    for (let i = 0; i < 3000; i++)
      for (const [, c, xs] of rows) {
        const t = process.hrtime.bigint();
        await c.callTool(readCall);
        xs.push(Number(process.hrtime.bigint() - t));
      }
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? Number.NaN;
    const p99 = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length * 0.99)] ?? Number.NaN;
    console.log(
      '\n## mcp: real @modelcontextprotocol/server-filesystem child, 3000 interleaved read_text_file calls each',
    );
    const base = median(rows[0]![2]);
    console.table(
      rows.map(([name, , xs]) => ({
        case: name,
        'median ns/op': median(xs),
        'p99 ns/op': p99(xs),
        '× direct': (median(xs) / base).toFixed(2),
      })),
    );
    console.log(
      `of the in-process gateway's added latency, the relay is ${((median(rows[3]![2]) - base) / 1e6).toFixed(4)} ms and judging the call ${((median(rows[1]![2]) - median(rows[3]![2])) / 1e6).toFixed(4)} ms`,
    );
    const inProcRatio = median(rows[1]![2]) / base;
    const processRatio = median(rows[2]![2]) / base;
    console.log(
      `gateway added latency, real filesystem server: ${((median(rows[1]![2]) - base) / 1e6).toFixed(4)} ms in process (${inProcRatio.toFixed(2)}×, goal ≤ 1.1×), ${((median(rows[2]![2]) - base) / 1e6).toFixed(4)} ms as the toolgate mcp process (${processRatio.toFixed(2)}×, goal ≤ 1.6×)`,
    );
  } finally {
    for (const close of closers.reverse()) await close().catch(() => {});
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The decision alone: `guard.check` of the rows' `read_text_file` call, back to back, and after 0.4 ms of
 * idle before each (as in a round trip, where the thread waits for the server: the caches are cold again).
 * The in-process row's "judging" share is the second number, give or take the machine's noise.
 */
async function judgingAlone(
  ctx: Parameters<ReturnType<typeof guardFor>['check']>[1],
  readCall: { name: string; arguments: Record<string, unknown> },
): Promise<void> {
  const guard = guardFor();
  const call = { tool: readCall.name, args: readCall.arguments };
  const first = await guard.check(call, ctx);
  if (first.action !== 'allow') throw new Error(`bench setup: the read was ${first.action}`);
  const idle = new Int32Array(new SharedArrayBuffer(4));
  const median = async (pauseMs: number): Promise<number> => {
    const xs: number[] = [];
    for (let i = 0; i < 3000; i++) {
      if (pauseMs > 0) Atomics.wait(idle, 0, 0, pauseMs);
      const t = process.hrtime.bigint();
      await guard.check(call, ctx);
      xs.push(Number(process.hrtime.bigint() - t));
    }
    return xs.sort((a, b) => a - b)[xs.length >> 1] ?? Number.NaN;
  };
  await median(0); // warm-up
  const hot = await median(0);
  const cold = await median(0.4);
  console.log(
    `\n## mcp: judging alone (guard.check of the read_text_file call, median of 3000)\nback to back: ${(hot / 1000).toFixed(1)} µs; after 0.4 ms idle each: ${(cold / 1000).toFixed(1)} µs`,
  );
}
