import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createGuard, type GuardPlugin, isWithin } from '@toolgate/core';
import { createGateway } from '@toolgate/mcp';
import { runSuite } from './harness.js';

// The SDK and the filesystem server are dependencies of @toolgate/mcp, not of the bench: load them from there.
const mcpRoot = join(dirname(fileURLToPath(import.meta.resolve('@toolgate/mcp'))), '..');
const mcpRequire = createRequire(join(mcpRoot, 'package.json'));
const sdkRoot = join(mcpRoot, 'node_modules', '@modelcontextprotocol', 'sdk');
const sdk = async <T>(path: string): Promise<T> =>
  (await import(pathToFileURL(join(sdkRoot, 'dist/esm', path)).href)) as T;
const FILESYSTEM_SERVER = mcpRequire.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

type Client = {
  connect(t: unknown): Promise<void>;
  callTool(p: unknown): Promise<unknown>;
  close(): Promise<void>;
};
type ClientCtor = new (info: unknown, opts?: unknown) => Client;

// A one-rule policy (reads and writes under the workspace): the bench measures the gateway, not a policy.
function workspacePolicy(ws: string): GuardPlugin {
  return {
    name: 'bench-policy',
    apply(hooks) {
      hooks.collectAccesses.tap('x', (accesses, call, state) =>
        typeof call.args.path === 'string'
          ? [...accesses, state.access(call.args.path, 'read', { origin: 'args.path' })]
          : accesses,
      );
      hooks.beforeToolCall.tap('x', (_call, state) => {
        for (const a of state.accesses)
          if (!isWithin(a.realPath ?? '', ws))
            return { action: 'deny', code: 'PATH_DENIED', reason: 'outside', access: a };
        return undefined;
      });
    },
  };
}

export default async function mcpBench(): Promise<void> {
  const { Client } = await sdk<{ Client: ClientCtor }>('client/index.js');
  const { StdioClientTransport } = await sdk<{
    StdioClientTransport: new (p: unknown) => { close(): Promise<void> };
  }>('client/stdio.js');
  const { InMemoryTransport } = await sdk<{ InMemoryTransport: { createLinkedPair(): [never, never] } }>(
    'inMemory.js',
  );
  const { McpServer } = await sdk<{
    McpServer: new (
      info: unknown,
    ) => {
      registerTool(n: string, c: unknown, f: unknown): void;
      connect(t: unknown): Promise<void>;
      close(): Promise<void>;
    };
  }>('server/mcp.js');

  const root = realpathSync.native(mkdtempSync(join(tmpdir(), 'tg-mcp-bench-')));
  const ws = join(root, 'ws');
  mkdirSync(ws);
  writeFileSync(join(ws, 'hello.txt'), 'hello\n');
  const ctx = { sessionId: 'bench', agentId: 'bench', cwd: ws, workspace: ws, home: root, env: {} };
  const readCall = { name: 'read_text_file', arguments: { path: join(ws, 'hello.txt') } };
  const deniedCall = { name: 'read_text_file', arguments: { path: '/etc/hostname' } };
  const closers: Array<() => Promise<void>> = [];
  try {
    // 1. In-process upstream (an SDK McpServer over in-memory transports): isolates what the gateway adds.
    const inProcessServer = async () => {
      const server = new McpServer({ name: 'echo', version: '1' });
      server.registerTool('read_text_file', { description: 'reads' }, () => ({
        content: [{ type: 'text', text: 'hello' }],
      }));
      const [a, b] = InMemoryTransport.createLinkedPair();
      await server.connect(b);
      closers.push(() => server.close());
      return a;
    };
    const direct = new Client({ name: 'bench', version: '1' });
    await direct.connect(await inProcessServer());
    const [clientSide, gatewaySide] = InMemoryTransport.createLinkedPair();
    const gateway = createGateway({
      guard: createGuard({ plugins: [workspacePolicy(ws)] }),
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

    // 2. The real filesystem server as a child process, called directly and through the gateway.
    const args = [FILESYSTEM_SERVER, root];
    const fsDirect = new Client({ name: 'bench', version: '1' });
    await fsDirect.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }));
    const [c2, g2] = InMemoryTransport.createLinkedPair();
    const fsGateway = createGateway({
      guard: createGuard({ plugins: [workspacePolicy(ws)] }),
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
    const real = await runSuite(
      'mcp: real @modelcontextprotocol/server-filesystem child (median ns per read_text_file)',
      [
        { name: 'direct: client → child', fn: () => fsDirect.callTool(readCall) },
        { name: 'gateway: client → gateway → child', fn: () => fsGuarded.callTool(readCall) },
      ],
      2000,
    );
    const addedReal =
      (real.get('gateway: client → gateway → child') ?? 0) - (real.get('direct: client → child') ?? 0);
    console.log(
      `gateway added latency, real filesystem server: ${(addedReal / 1e6).toFixed(4)} ms median per call (two child processes: includes their noise)`,
    );
  } finally {
    for (const close of closers.reverse()) await close().catch(() => {});
    rmSync(root, { recursive: true, force: true });
  }
}
