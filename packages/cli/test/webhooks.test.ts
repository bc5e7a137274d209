import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { verifyWebhookSignature } from '@toolgate/webhooks';
import { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { registerWebhooks, runWebhooksTest } from '../src/commands/webhooks.js';
import { UsageError } from '../src/exitCodes.js';

interface Hit {
  headers: IncomingHttpHeaders;
  body: string;
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function receiver(status: number, answer: string): Promise<{ url: string; hits: Hit[] }> {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      hits.push({ headers: req.headers, body });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(answer);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  closers.push(() => new Promise((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, hits };
}

function sink(): { stream: Writable; text(): string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _enc, cb) {
      text += chunk.toString();
      cb();
    },
  });
  return { stream, text: () => text };
}

describe('toolgate webhooks test <url>', () => {
  it("sends a signed sample violation and prints the receiver's answer (exit 0)", async () => {
    const r = await receiver(200, 'thanks, got it');
    const out = sink();
    const code = await runWebhooksTest(r.url, { secret: 's3cret' }, {}, out.stream);
    expect(code).toBe(0);
    expect(r.hits).toHaveLength(1);
    const hit = r.hits[0]!;
    expect(verifyWebhookSignature({ body: hit.body, headers: hit.headers, secret: 's3cret' }).ok).toBe(true);
    expect(JSON.parse(hit.body)).toMatchObject({
      event: 'security.violation',
      severity: 'critical',
      path: '/etc/passwd',
    });
    expect(out.text()).toContain(`POST ${r.url} (format json, signed)`);
    expect(out.text()).toContain(`X-Toolgate-Delivery: ${hit.headers['x-toolgate-delivery']}`);
    expect(out.text()).toMatch(/accepted: HTTP 200 in \d+ ms/);
    expect(out.text()).toContain('thanks, got it');
  });

  it('takes the secret from TOOLGATE_WEBHOOK_SECRET, honours --format, and prints JSON with --json', async () => {
    const r = await receiver(202, '');
    const out = sink();
    const code = await runWebhooksTest(
      r.url,
      { format: 'discord', json: true },
      { TOOLGATE_WEBHOOK_SECRET: 'from-env' },
      out.stream,
    );
    expect(code).toBe(0);
    const printed = JSON.parse(out.text());
    expect(printed).toMatchObject({ ok: true, status: 202, format: 'discord', signed: true });
    const body = JSON.parse(r.hits[0]!.body);
    expect(body).toHaveProperty('content');
    expect(body).toHaveProperty('embeds');
    expect(
      verifyWebhookSignature({ body: r.hits[0]!.body, headers: r.hits[0]!.headers, secret: 'from-env' }).ok,
    ).toBe(true);
  });

  it('a refusing receiver is exit 1 with its answer printed; no receiver at all is exit 1 too', async () => {
    const r = await receiver(401, 'bad signature');
    const out = sink();
    expect(await runWebhooksTest(r.url, {}, {}, out.stream)).toBe(1);
    expect(out.text()).toMatch(/FAILED: HTTP 401/);
    expect(out.text()).toContain('bad signature');
    const port = Number(new URL(r.url).port);
    await closers.pop()!();
    const down = sink();
    expect(await runWebhooksTest(`http://127.0.0.1:${port}/hook`, { timeout: '2000' }, {}, down.stream)).toBe(
      1,
    );
    expect(down.text()).toMatch(/FAILED: no HTTP response/);
    expect(down.text()).toMatch(/ECONNREFUSED/);
  });

  it('bad usage throws errors the CLI turns into exit 2', async () => {
    await expect(runWebhooksTest('http://127.0.0.1:9/x', { format: 'teams' }, {})).rejects.toBeInstanceOf(
      UsageError,
    );
    await expect(runWebhooksTest('http://127.0.0.1:9/x', { timeout: 'soon' }, {})).rejects.toBeInstanceOf(
      UsageError,
    );
    await expect(runWebhooksTest('not a url', {}, {})).rejects.toThrow(
      /url must be an absolute http\(s\) URL/,
    );
  });

  it('registers as `webhooks test` with its options', () => {
    const program = new Command('toolgate');
    registerWebhooks(program);
    const group = program.commands.find((c) => c.name() === 'webhooks');
    const test = group?.commands.find((c) => c.name() === 'test');
    expect(test?.options.map((o) => o.long)).toEqual(['--secret', '--format', '--timeout', '--json']);
  });
});
