import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallContext, createGuard } from '@toolgate/core';
import { folderRules, loadPolicy } from '@toolgate/folder-rules';
import { createGateway, type Gateway } from '@toolgate/mcp';
import { shell } from '@toolgate/shell';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// Issue 17's repro, end to end: the MCP gateway forwarded batch_write {ops: [{path:
// "/root/.ssh/authorized_keys"}]} and the server wrote the file. Here a real server child does exactly what
// it is asked and logs every call it receives; the attacks must never reach it, their twins must.
const SERVER = fileURLToPath(new URL('./fixtures/batchServer.mjs', import.meta.url));
const CLI = fileURLToPath(new URL('../../packages/cli/dist/bin.js', import.meta.url));

let root: string;
let ws: string;
let home: string;
let log: string;
let policy: string;
let ctx: CallContext;
let open: Array<{ client: Client; gateway: Gateway }> = [];

beforeEach(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-nested-')));
  ws = join(root, 'ws');
  home = join(root, 'home');
  mkdirSync(ws, { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'authorized_keys'), 'ssh-ed25519 OWNER\n');
  writeFileSync(join(ws, 'a.txt'), 'a\n');
  log = join(root, 'server.log');
  writeFileSync(log, '');
  policy = join(root, 'policy.yaml');
  writeFileSync(policy, 'default: deny\nrules:\n  - { pattern: "<workspace>/**", access: write }\n');
  ctx = { sessionId: 'n', agentId: 'n', cwd: ws, workspace: ws, home, env: { HOME: home } };
});
afterEach(async () => {
  for (const { client, gateway } of open) {
    await client.close();
    await gateway.close();
  }
  open = [];
  rmSync(root, { recursive: true, force: true });
});

async function connect(mode: 'schema' | 'bare') {
  const guard = createGuard({
    plugins: [
      shell(),
      folderRules({ policy: loadPolicy({ dialect: 'toolgate', file: policy, env: ctx.env }) }),
    ],
  });
  const upstream = { command: process.execPath, args: [SERVER, log, mode], stderr: 'ignore' as const };
  const gateway = createGateway({ guard, ctx, upstream, onError: () => {} });
  const [clientSide, gatewaySide] = InMemoryTransport.createLinkedPair();
  await gateway.connect(gatewaySide);
  const client = new Client({ name: 'nested', version: '1.0.0' });
  await client.connect(clientSide);
  open.push({ client, gateway });
  return client;
}

const seen = () =>
  readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { name: string }).name);

const attacks = () => [
  {
    name: 'batch_write',
    arguments: { ops: [{ path: join(home, '.ssh', 'authorized_keys'), content: 'ssh-rsa EVIL' }] },
  },
  {
    name: 'batch_write',
    arguments: {
      ops: [
        { path: join(ws, 'ok.txt'), content: 'x' },
        { path: '~/.ssh/authorized_keys', content: 'EVIL' },
      ],
    },
  },
  {
    name: 'move_file',
    arguments: { source_path: join(ws, 'a.txt'), dest_path: join(home, '.ssh', 'authorized_keys') },
  },
  {
    name: 'move_workspace_file',
    arguments: {
      source_filepath: join(ws, 'a.txt'),
      destination_filepath: join(home, '.ssh', 'authorized_keys'),
    },
  },
  {
    name: 'move_workspace_file',
    arguments: {
      source_filepath: join(home, '.ssh', 'authorized_keys'),
      destination_filepath: join(ws, 'k'),
    },
  },
];

describe('nested and oddly named path arguments through the real gateway', () => {
  for (const mode of ['schema', 'bare'] as const) {
    it(`${mode} schemas: the server never sees an attack; the twins reach it and run`, async () => {
      const client = await connect(mode);
      await client.listTools();
      for (const call of attacks()) {
        const result = await client.callTool(call);
        expect(result.isError, JSON.stringify(call)).toBe(true);
      }
      expect(seen()).toEqual([]);
      expect(readFileSync(join(home, '.ssh', 'authorized_keys'), 'utf8')).toBe('ssh-ed25519 OWNER\n');
      // Benign twins: a schema that declares its paths makes them attributed, so they are judged by the
      // rules and allowed inside the workspace; a bare schema declares nothing, so unknownTools (deny) holds
      // for batch_write — move_workspace_file is the Folder Guard's, known from the built-in table.
      const twin = await client.callTool({
        name: 'batch_write',
        arguments: { ops: [{ path: join(ws, 'new.txt'), content: 'hi' }] },
      });
      const moved = await client.callTool({
        name: 'move_workspace_file',
        arguments: { source_filepath: join(ws, 'a.txt'), destination_filepath: join(ws, 'b.txt') },
      });
      expect(moved.isError).toBeFalsy();
      expect(existsSync(join(ws, 'b.txt'))).toBe(true);
      if (mode === 'schema') {
        expect(twin.isError).toBeFalsy();
        expect(readFileSync(join(ws, 'new.txt'), 'utf8')).toBe('hi');
        expect(seen()).toEqual(['batch_write', 'move_workspace_file']);
      } else {
        expect(twin.isError).toBe(true);
        expect(JSON.parse((twin.content as Array<{ text: string }>)[0]!.text).code).toBe('UNKNOWN_TOOL');
        expect(seen()).toEqual(['move_workspace_file']);
      }
    });
  }

  it('toolgate check denies every shape, and allows the twins', () => {
    const check = (call: object) =>
      spawnSync(
        process.execPath,
        [CLI, 'check', '--policy', policy, '--cwd', ws, '--json', '--call', JSON.stringify(call)],
        {
          encoding: 'utf8',
          env: { PATH: process.env.PATH, HOME: home },
          timeout: 20_000,
        },
      );
    for (const call of attacks()) {
      const r = check({ tool: call.name, args: call.arguments });
      expect(r.status, `${call.name} ${r.stderr}`).toBe(1);
      expect(JSON.parse(r.stdout).decision).toBe('deny');
    }
    const moveTwin = check({
      tool: 'move_workspace_file',
      args: { source_filepath: 'a.txt', destination_filepath: 'b.txt' },
    });
    expect(moveTwin.status, moveTwin.stderr).toBe(0);
    const imageTwin = check({ tool: 'tool_image_analyze', args: { image_path: 'a.png' } });
    expect(imageTwin.status).toBe(0);
    expect(
      check({ tool: 'tool_image_analyze', args: { image_path: join(home, '.ssh', 'authorized_keys') } })
        .status,
    ).toBe(1);
  });
});
