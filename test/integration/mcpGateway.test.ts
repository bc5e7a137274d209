import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { approvals, autoDeny } from '@toolgate/approvals';
import { auditLog, getStats } from '@toolgate/audit-log';
import { type CallContext, createGuard } from '@toolgate/core';
import { folderRules, loadPolicy } from '@toolgate/folder-rules';
import {
  createGateway,
  elicitationApprover,
  type Gateway,
  requireAbsolutePaths,
  type UpstreamOptions,
} from '@toolgate/mcp';
import { shell } from '@toolgate/shell';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// End to end through public APIs only: folder-rules, shell, approvals, audit-log and the MCP gateway in
// front of real servers, driven by the MCP SDK's own Client.
const FILESYSTEM_SERVER = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-filesystem/dist/index.js',
);
const NOTES_SERVER = fileURLToPath(new URL('./fixtures/notesServer.mjs', import.meta.url));

let root: string;
let ws: string;
let out: string;
let ctx: CallContext;
let open: Array<{ client: Client; gateway: Gateway }> = [];

beforeEach(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-e2e-mcp-')));
  ws = join(root, 'ws');
  out = join(root, 'outside');
  mkdirSync(join(ws, 'notes'), { recursive: true });
  mkdirSync(join(ws, 'release'));
  mkdirSync(out);
  writeFileSync(join(ws, 'notes', 'a.md'), 'note a\n');
  writeFileSync(join(ws, '.env'), 'KEY=1\n');
  writeFileSync(join(out, 'secret.txt'), 'top secret\n');
  symlinkSync(out, join(ws, 'link'));
  ctx = {
    sessionId: 'e2e',
    agentId: 'e2e-agent',
    cwd: ws,
    workspace: ws,
    home: join(root, 'home'),
    env: { HOME: join(root, 'home') },
  };
});
afterEach(async () => {
  for (const { client, gateway } of open) {
    await client.close();
    await gateway.close();
  }
  open = [];
  rmSync(root, { recursive: true, force: true });
});

function policyFile(yaml: string): string {
  const file = join(root, 'policy.yaml');
  writeFileSync(file, yaml);
  return file;
}

const WRITABLE = `default: deny
rules:
  - { pattern: "<workspace>/**", access: write }
  - { pattern: "<workspace>/release/**", access: prompt }
  - { pattern: "**/.env", access: deny }
`;
const READ_ONLY = `default: deny
hideWriteTools: true
rules:
  - { pattern: "<workspace>/**", access: read }
`;

async function connect(yaml: string, upstream: UpstreamOptions, capabilities: Record<string, unknown> = {}) {
  const audit = join(root, 'audit.jsonl');
  const elicitation = elicitationApprover();
  const guard = createGuard({
    plugins: [
      folderRules({ policy: loadPolicy({ dialect: 'toolgate', file: policyFile(yaml), env: ctx.env }) }),
      shell(),
      requireAbsolutePaths(),
      elicitation,
      approvals({ strategy: autoDeny() }),
      auditLog({ file: audit, level: 'all' }),
    ],
  });
  const gateway = createGateway({ guard, ctx, elicitation, upstream, onError: () => {} });
  const [clientSide, gatewaySide] = InMemoryTransport.createLinkedPair();
  await gateway.connect(gatewaySide);
  const client = new Client({ name: 'e2e', version: '1.0.0' }, { capabilities });
  await client.connect(clientSide);
  open.push({ client, gateway });
  return { client, audit };
}

const filesystem = (): UpstreamOptions => ({
  command: process.execPath,
  args: [FILESYSTEM_SERVER, root],
  stderr: 'ignore',
});

function envelopeOf(result: { isError?: unknown; content?: unknown }): Record<string, unknown> {
  expect(result.isError).toBe(true);
  return JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as Record<string, unknown>;
}

describe('MCP gateway + folder-rules + the real filesystem server', () => {
  it('allowed read, denied write (file untouched), symlink escape, move to a denied destination, one bad path in a batch', async () => {
    const { client, audit } = await connect(WRITABLE, filesystem());
    const read = await client.callTool({
      name: 'read_text_file',
      arguments: { path: join(ws, 'notes', 'a.md') },
    });
    expect((read.content as Array<{ text: string }>)[0]?.text).toBe('note a\n');
    expect(
      envelopeOf(
        await client.callTool({
          name: 'write_file',
          arguments: { path: join(out, 'secret.txt'), content: 'x' },
        }),
      ).code,
    ).toBe('PATH_DENIED');
    expect(readFileSync(join(out, 'secret.txt'), 'utf8')).toBe('top secret\n');
    expect(
      envelopeOf(
        await client.callTool({
          name: 'read_text_file',
          arguments: { path: join(ws, 'link', 'secret.txt') },
        }),
      ).path,
    ).toBe(join(out, 'secret.txt'));
    expect(
      envelopeOf(
        await client.callTool({
          name: 'move_file',
          arguments: { source: join(ws, 'notes', 'a.md'), destination: join(out, 'a.md') },
        }),
      ).code,
    ).toBe('PATH_DENIED');
    expect(existsSync(join(ws, 'notes', 'a.md'))).toBe(true);
    expect(
      envelopeOf(
        await client.callTool({
          name: 'read_multiple_files',
          arguments: { paths: [join(ws, 'notes', 'a.md'), join(ws, '.env')] },
        }),
      ).code,
    ).toBe('PATH_DENIED');
    const stats = await getStats({ file: audit });
    expect(stats.byDecision).toMatchObject({ allow: 1, deny: 4 });
  });

  it('tools/list under a read-only policy: write tools hidden, descriptions carry the allowed root', async () => {
    const { client } = await connect(READ_ONLY, filesystem());
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const writer of ['write_file', 'edit_file', 'move_file', 'create_directory'])
      expect(names).not.toContain(writer);
    expect(names).toContain('read_text_file');
    expect(tools.find((t) => t.name === 'read_text_file')?.description).toContain(ws);
    // Hidden is not the only defence: calling a hidden tool anyway is denied.
    expect(
      envelopeOf(
        await client.callTool({ name: 'write_file', arguments: { path: join(ws, 'x.txt'), content: 'x' } }),
      ).code,
    ).toBe('PATH_DENIED');
  });

  it('a prompt-tier write is answered through elicitation when the client supports it, else by the configured strategy', async () => {
    const target = join(ws, 'release', 'notes.txt');
    const asking = await connect(WRITABLE, filesystem(), { elicitation: {} });
    asking.client.setRequestHandler(ElicitRequestSchema, () => ({
      action: 'accept',
      content: { approve: true },
    }));
    expect(
      (await asking.client.callTool({ name: 'write_file', arguments: { path: target, content: 'v1' } }))
        .isError,
    ).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('v1');
    const plain = await connect(WRITABLE, filesystem());
    expect(
      envelopeOf(
        await plain.client.callTool({ name: 'write_file', arguments: { path: target, content: 'v2' } }),
      ).code,
    ).toBe('PROMPT_DENIED');
    expect(readFileSync(target, 'utf8')).toBe('v1');
  });
});

describe('MCP gateway + folder-rules + a server toolgate has no table for', () => {
  it('classifies its tools from annotations and input schemas before the first call (no tools/list by the client)', async () => {
    const { client } = await connect(WRITABLE, {
      command: process.execPath,
      args: [NOTES_SERVER],
      stderr: 'ignore',
    });
    // destructiveHint + a path-named argument: a write. Outside the workspace it is denied, inside it runs.
    const denied = envelopeOf(
      await client.callTool({
        name: 'archive_note',
        arguments: { target_path: join(out, 'n.md'), text: 'x' },
      }),
    );
    expect(denied).toMatchObject({ code: 'PATH_DENIED', operation: 'write' });
    expect(existsSync(join(out, 'n.md'))).toBe(false);
    expect(
      (
        await client.callTool({
          name: 'archive_note',
          arguments: { target_path: join(ws, 'notes', 'n.md'), text: 'x' },
        })
      ).isError,
    ).toBeFalsy();
    expect(readFileSync(join(ws, 'notes', 'n.md'), 'utf8')).toBe('x');
    // readOnlyHint: a read; the .env deny rule still applies.
    expect(
      envelopeOf(await client.callTool({ name: 'peek_note', arguments: { note_file: join(ws, '.env') } })),
    ).toMatchObject({ code: 'PATH_DENIED', operation: 'read' });
  });
});
