import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createGuard, type GuardPlugin } from '@toolgate/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { elicitationApprover, requireAbsolutePaths } from '../src/index.js';
import { type Connected, connectThroughGateway, textOf } from './support/connect.js';
import { fsPolicy } from './support/fsPolicy.js';
import { type TempWorkspace, tempWorkspace } from './support/workspace.js';

let t: TempWorkspace;
let c: Connected | undefined;

beforeEach(() => {
  t = tempWorkspace();
});
afterEach(async () => {
  await c?.close();
  c = undefined;
  t.cleanup();
});

async function gatewayWith(
  policy: Parameters<typeof fsPolicy>[0],
  capabilities: Record<string, unknown> = {},
  extra: GuardPlugin[] = [],
) {
  const elicitation = elicitationApprover();
  const guard = createGuard({ plugins: [fsPolicy(policy), elicitation, ...extra] });
  c = await connectThroughGateway(
    {
      guard,
      ctx: t.ctx,
      elicitation,
      upstream: { command: process.execPath, args: t.serverArgs, stderr: 'ignore' },
    },
    capabilities,
  );
  return c.client;
}

function envelope(result: { content?: unknown; isError?: unknown }) {
  expect(result.isError).toBe(true);
  return JSON.parse(textOf(result)) as Record<string, unknown>;
}

describe('gateway in front of the real filesystem server', () => {
  it('relays an allowed read and returns the file', async () => {
    const client = await gatewayWith({ write: [t.ws] });
    const result = await client.callTool({
      name: 'read_text_file',
      arguments: { path: join(t.ws, 'hello.txt') },
    });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('hello from the workspace');
  });

  it('denies a write outside the workspace: isError with the envelope, and the file is untouched', async () => {
    const client = await gatewayWith({ write: [t.ws] });
    const target = join(t.outside, 'secret.txt');
    const result = await client.callTool({
      name: 'write_file',
      arguments: { path: target, content: 'pwned' },
    });
    const env = envelope(result);
    expect(env).toMatchObject({
      code: 'PATH_DENIED',
      tool_name: 'write_file',
      path: target,
      operation: 'write',
      allowed_paths: [t.ws],
    });
    expect(readFileSync(target, 'utf8')).toBe('top secret\n');
  });

  it('denies a write to a new file outside: the server never creates it', async () => {
    const client = await gatewayWith({ write: [t.ws] });
    const target = join(t.outside, 'new.txt');
    envelope(await client.callTool({ name: 'write_file', arguments: { path: target, content: 'x' } }));
    expect(existsSync(target)).toBe(false);
  });

  it('denies move_file whose destination is outside, leaving the source in place', async () => {
    const client = await gatewayWith({ write: [t.ws] });
    const source = join(t.ws, 'hello.txt');
    const destination = join(t.outside, 'stolen.txt');
    const env = envelope(await client.callTool({ name: 'move_file', arguments: { source, destination } }));
    expect(env.path).toBe(destination);
    expect(existsSync(source)).toBe(true);
    expect(existsSync(destination)).toBe(false);
  });

  it('allows move_file inside the workspace (the call reaches the server unchanged)', async () => {
    const client = await gatewayWith({ write: [t.ws] });
    const result = await client.callTool({
      name: 'move_file',
      arguments: { source: join(t.ws, 'hello.txt'), destination: join(t.ws, 'src', 'moved.txt') },
    });
    expect(result.isError).toBeFalsy();
    expect(existsSync(join(t.ws, 'src', 'moved.txt'))).toBe(true);
  });

  it('denies read_multiple_files when one of the paths is denied (all or nothing)', async () => {
    const client = await gatewayWith({ write: [t.ws] });
    const result = await client.callTool({
      name: 'read_multiple_files',
      arguments: { paths: [join(t.ws, 'hello.txt'), join(t.outside, 'secret.txt')] },
    });
    const env = envelope(result);
    expect(env.path).toBe(join(t.outside, 'secret.txt'));
    expect(textOf(result)).not.toContain('hello from the workspace');
  });

  it('denies a read through a symlink inside the workspace that points out of it', async () => {
    const client = await gatewayWith({ write: [t.ws] });
    const result = await client.callTool({
      name: 'read_text_file',
      arguments: { path: join(t.ws, 'link', 'secret.txt') },
    });
    const env = envelope(result);
    expect(env.path).toBe(join(t.outside, 'secret.txt'));
    expect(textOf(result)).not.toContain('top secret');
  });

  it('denies a relative traversal resolved against the call context, not the process cwd', async () => {
    const client = await gatewayWith({ write: [t.ws] });
    // (Without requireAbsolutePaths, relative paths are judged against ctx.cwd; see the bug test below.)
    const env = envelope(
      await client.callTool({ name: 'read_text_file', arguments: { path: 'src/../../outside/secret.txt' } }),
    );
    expect(env.path).toBe(join(t.outside, 'secret.txt'));
  });

  it('bug: a relative path is judged against ctx.cwd but the filesystem server resolves it against its first root', async () => {
    // ctx.cwd is root/ws, the server's root is root: "outside/secret.txt" is root/ws/outside/secret.txt to the
    // guard (inside the workspace) and root/outside/secret.txt to the server. requireAbsolutePaths closes it.
    const client = await gatewayWith({ write: [t.ws] }, {}, [requireAbsolutePaths()]);
    const result = await client.callTool({
      name: 'read_text_file',
      arguments: { path: 'outside/secret.txt' },
    });
    const env = envelope(result);
    expect(env.code).toBe('PATH_UNCERTAIN');
    expect(textOf(result)).not.toContain('top secret');
    for (const raw of ['$HOME/x', '~root/x', '<workspace>/x', './hello.txt']) {
      expect(envelope(await client.callTool({ name: 'read_text_file', arguments: { path: raw } })).code).toBe(
        'PATH_UNCERTAIN',
      );
    }
    expect(
      (await client.callTool({ name: 'read_text_file', arguments: { path: join(t.ws, 'hello.txt') } }))
        .isError,
    ).toBeFalsy();
  });

  it('denies a path argument that is not a string (uncertain) without reaching the server', async () => {
    const client = await gatewayWith({ write: [t.ws] });
    const env = envelope(await client.callTool({ name: 'read_multiple_files', arguments: { paths: [42] } }));
    expect(env.code).toBe('PATH_UNCERTAIN');
  });

  it('enhances tool descriptions and hides write tools under a read-only policy', async () => {
    const client = await gatewayWith({ read: [t.ws] });
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toContain('read_text_file');
    expect(names).not.toContain('write_file');
    expect(names).not.toContain('move_file');
    expect(names).not.toContain('edit_file');
    expect(tools.find((tool) => tool.name === 'read_text_file')?.description).toContain(
      `Allowed paths: ${t.ws}`,
    );
  });

  it('passes other requests through untouched (ping, a tool with no paths)', async () => {
    const client = await gatewayWith({ read: [t.ws] });
    await expect(client.ping()).resolves.toBeDefined();
    const result = await client.callTool({ name: 'list_allowed_directories', arguments: {} });
    expect(textOf(result)).toContain(t.root);
  });
});

describe('prompts through MCP elicitation', () => {
  const capabilities = { elicitation: {} };

  it('asks the human through the client; approval lets the call through', async () => {
    const client = await gatewayWith({ write: [t.ws], prompt: [join(t.ws, 'src')] }, capabilities);
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(String(request.params.message));
      return { action: 'accept', content: { approve: true } };
    });
    const result = await client.callTool({
      name: 'write_file',
      arguments: { path: join(t.ws, 'src', 'b.txt'), content: 'approved' },
    });
    expect(result.isError).toBeFalsy();
    expect(readFileSync(join(t.ws, 'src', 'b.txt'), 'utf8')).toBe('approved');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('write_file');
  });

  it('a declined elicitation denies the call with PROMPT_DENIED and the server never sees it', async () => {
    const client = await gatewayWith({ write: [t.ws], prompt: [join(t.ws, 'src')] }, capabilities);
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'decline' }));
    const env = envelope(
      await client.callTool({
        name: 'write_file',
        arguments: { path: join(t.ws, 'src', 'b.txt'), content: 'x' },
      }),
    );
    expect(env.code).toBe('PROMPT_DENIED');
    expect(existsSync(join(t.ws, 'src', 'b.txt'))).toBe(false);
  });

  it('accept with approve: false is a refusal, not an approval', async () => {
    const client = await gatewayWith({ write: [t.ws], prompt: [join(t.ws, 'src')] }, capabilities);
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { approve: false } }));
    expect(
      envelope(
        await client.callTool({
          name: 'write_file',
          arguments: { path: join(t.ws, 'src', 'b.txt'), content: 'x' },
        }),
      ).code,
    ).toBe('PROMPT_DENIED');
  });

  it('a client without elicitation falls through to the next approver; with none the prompt is denied', async () => {
    const client = await gatewayWith({ write: [t.ws], prompt: [join(t.ws, 'src')] });
    const env = envelope(
      await client.callTool({
        name: 'write_file',
        arguments: { path: join(t.ws, 'src', 'b.txt'), content: 'x' },
      }),
    );
    expect(env.code).toBe('PROMPT_UNANSWERED');
    expect(existsSync(join(t.ws, 'src', 'b.txt'))).toBe(false);
  });

  it('a call cancelled while waiting for approval is never relayed, even if approved afterwards', async () => {
    const client = await gatewayWith({ write: [t.ws], prompt: [join(t.ws, 'src')] }, capabilities);
    const controller = new AbortController();
    let approve!: () => void;
    const approved = new Promise<void>((resolve) => {
      approve = resolve;
    });
    client.setRequestHandler(ElicitRequestSchema, async () => {
      controller.abort('changed my mind');
      await approved;
      return { action: 'accept', content: { approve: true } };
    });
    const call = client.callTool(
      { name: 'write_file', arguments: { path: join(t.ws, 'src', 'late.txt'), content: 'x' } },
      undefined,
      { signal: controller.signal },
    );
    await expect(call).rejects.toThrow();
    approve();
    await client.ping();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(existsSync(join(t.ws, 'src', 'late.txt'))).toBe(false);
  });
});
