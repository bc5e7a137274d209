import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard, type GuardPlugin, parseTarget, Stage } from '@toolgate/core';
import { folderRules, loadPolicy } from '@toolgate/folder-rules';
import { sandbox } from '@toolgate/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Issue 26: the network section judged in the call. WebFetch/fetch/MCP URL arguments are extracted by
// folder-rules; a stand-in for the shell's extractors (net-shell's) reaches hosts for a Bash call.

let root: string;
let ctx: CallContext;
let file: string;

const POLICY = (extra = '') => `rules:
  - {pattern: "<workspace>/**", access: write}
network:
  default: deny
  presets: [npm]
  rules:
    - {host: "*.example.org", action: allow, method: read}
    - {host: ask.example.net, action: prompt}
    - {host: "*", action: allow, method: read, ports: [8443]}
    - {host: evil.example.com, action: deny}
${extra}`;

function guardOf(source: string, options: { disclosure?: 'full' | 'redacted' } = {}) {
  return createGuard({ plugins: [folderRules({ file, source })], ...options });
}

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-net-')));
  mkdirSync(join(root, 'ws'));
  mkdirSync(join(root, 'home'));
  file = join(root, 'ws', 'toolgate.yaml');
  ctx = {
    sessionId: 's',
    agentId: 'a',
    cwd: join(root, 'ws'),
    workspace: join(root, 'ws'),
    home: join(root, 'home'),
    env: {},
  };
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('WebFetch and fetch tools under a network section', () => {
  it('a denied host: NETWORK_DENIED, the envelope names host, rule and allowed hosts', async () => {
    const d = await guardOf(POLICY()).check(
      { tool: 'WebFetch', args: { url: 'https://evil.example.com/x', prompt: 'p' } },
      ctx,
    );
    expect(d.action).toBe('deny');
    expect(d.reasons[0]).toMatchObject({
      code: 'NETWORK_DENIED',
      network: { host: 'evil.example.com', method: 'read' },
    });
    expect(d.envelope).toMatchObject({
      code: 'NETWORK_DENIED',
      tool_name: 'WebFetch',
      host: 'evil.example.com',
      operation: 'read',
      rule: 'deny evil.example.com',
    });
    expect(d.envelope?.allowed_hosts).toEqual(
      expect.arrayContaining(['registry.npmjs.org', '*.example.org']),
    );
    expect(d.envelope?.hint).toMatch(/allowed hosts/);
    expect(d.reasons[0]?.rule?.source).toBe(`${file}#network.rules[3]`);
  });

  it('twin: an allowed host passes, and the rule that allowed it is recorded', async () => {
    const d = await guardOf(POLICY()).check(
      { tool: 'WebFetch', args: { url: 'https://docs.example.org/x', prompt: 'p' } },
      ctx,
    );
    expect(d.action).toBe('allow');
    expect(d.network?.[0]).toMatchObject({ host: 'docs.example.org', method: 'read', certain: true });
    expect(d.matched.map((m) => m.pattern)).toContain('allow *.example.org read');
  });

  it('a host in no rule: denied by the default, which the envelope names', async () => {
    const d = await guardOf(POLICY()).check(
      { tool: 'web_fetch', args: { url: 'https://unlisted.test/' } },
      ctx,
    );
    expect(d.envelope).toMatchObject({
      code: 'NETWORK_DENIED',
      host: 'unlisted.test',
      rule: 'default: deny',
    });
  });

  it('userinfo: https://registry.npmjs.org@evil.example.com reaches evil.example.com', async () => {
    const g = guardOf(POLICY());
    const attack = await g.check(
      { tool: 'WebFetch', args: { url: 'https://registry.npmjs.org@evil.example.com/' } },
      ctx,
    );
    expect(attack.envelope).toMatchObject({ code: 'NETWORK_DENIED', host: 'evil.example.com' });
    const twin = await g.check(
      { tool: 'WebFetch', args: { url: 'https://evil.example.com@registry.npmjs.org/' } },
      ctx,
    );
    expect(twin.action).toBe('allow');
  });

  it('a backslash before @: fetch goes to the host before it, curl to the one after — never allowed', async () => {
    const g = guardOf(POLICY());
    // WHATWG (Node's fetch): `\\` ends the authority, so this fetches evil.example.com; curl: registry.npmjs.org.
    const url = 'https://evil.example.com\\@registry.npmjs.org/';
    expect(new URL(url).hostname).toBe('evil.example.com');
    const attack = await g.check({ tool: 'WebFetch', args: { url } }, ctx);
    expect(attack.action).not.toBe('allow');
    expect(JSON.stringify(attack.reasons)).toContain('clients disagree');
    const twin = await g.check({ tool: 'WebFetch', args: { url: 'https://registry.npmjs.org/a\\b' } }, ctx);
    expect(twin.action).toBe('allow');
  });

  it('decimal IPv4 and IPv4-mapped IPv6 are judged as the address they reach', async () => {
    const g = guardOf(
      POLICY('    - {host: 127.0.0.0/8, action: deny}\n    - {host: 127.0.0.1, action: deny}\n'),
    );
    for (const url of ['http://2130706433:8443/', 'http://[::ffff:127.0.0.1]:8443/', 'http://0x7f.1:8443/']) {
      const d = await g.check({ tool: 'WebFetch', args: { url } }, ctx);
      expect(d.envelope?.code, url).toBe('NETWORK_DENIED');
      expect(d.envelope?.host, url).toMatch(/^(127\.0\.0\.1|::ffff:7f00:1)$/);
    }
    const twin = await g.check({ tool: 'WebFetch', args: { url: 'http://2130706431:8443/' } }, ctx);
    expect(twin.action).toBe('allow'); // 126.255.255.255, allowed on port 8443 by the `*` rule
  });

  it('a prompt rule asks (NETWORK_PROMPT); with nobody to ask it is denied', async () => {
    const g = guardOf(POLICY());
    const d = await g.check({ tool: 'WebFetch', args: { url: 'https://ask.example.net/' } }, ctx, {
      resolvePrompts: false,
    });
    expect(d.action).toBe('prompt');
    expect(d.reasons[0]).toMatchObject({
      code: 'NETWORK_PROMPT',
      rule: { pattern: 'prompt ask.example.net' },
    });
    const settled = await g.check({ tool: 'WebFetch', args: { url: 'https://ask.example.net/' } }, ctx);
    expect(settled.action).toBe('deny');
  });

  it('a URL argument that is not a URL is uncertain (NETWORK_UNCERTAIN), never allowed', async () => {
    const g = guardOf(POLICY());
    for (const url of [42, 'https://$HOST/x', 'example.org/x']) {
      const d = await g.check({ tool: 'WebFetch', args: { url } }, ctx);
      expect(d.envelope?.code, String(url)).toBe('NETWORK_UNCERTAIN');
    }
    const prompting = guardOf(`${POLICY()}uncertain: prompt\n`);
    const p = await prompting.check({ tool: 'WebFetch', args: { url: 'https://$HOST/' } }, ctx, {
      resolvePrompts: false,
    });
    expect(p.action).toBe('prompt');
  });

  it('an MCP tool with a url and a body writes: a read-only allow does not cover it', async () => {
    const g = guardOf(POLICY());
    const post = await g.check(
      { tool: 'mcp__http__request', args: { url: 'https://api.example.org/v1', method: 'POST', body: '{}' } },
      ctx,
    );
    expect(post.envelope).toMatchObject({
      code: 'NETWORK_DENIED',
      host: 'api.example.org',
      operation: 'write',
    });
    const get = await g.check(
      { tool: 'mcp__http__request', args: { url: 'https://api.example.org/v1', method: 'GET' } },
      ctx,
    );
    expect(get.action).toBe('allow');
    const fetchTool = await g.check(
      { tool: 'mcp__fetch__fetch', args: { url: 'https://evil.example.com/' } },
      ctx,
    );
    expect(fetchTool.envelope?.code).toBe('NETWORK_DENIED');
  });

  it('a tool the policy declares with `urls` is judged on that argument', async () => {
    const g = guardOf(
      `${POLICY()}tools:\n  deploy_site: {op: none, urls: [{arg: target.endpoint, method: write}]}\n`,
    );
    const d = await g.check(
      { tool: 'deploy_site', args: { target: { endpoint: 'https://docs.example.org/up' } } },
      ctx,
    );
    expect(d.envelope).toMatchObject({ code: 'NETWORK_DENIED', operation: 'write', rule: 'default: deny' });
  });

  it('WebSearch names no host: allowed', async () => {
    const d = await guardOf(POLICY()).check({ tool: 'WebSearch', args: { query: 'evil.example.com' } }, ctx);
    expect(d.action).toBe('allow');
  });

  it('disclosure redacted: the host is named, neither the rule nor the allowed hosts', async () => {
    const d = await guardOf(POLICY(), { disclosure: 'redacted' }).check(
      { tool: 'WebFetch', args: { url: 'https://evil.example.com/' } },
      ctx,
    );
    expect(d.envelope?.host).toBe('evil.example.com');
    expect(d.envelope?.rule).toBeUndefined();
    expect(d.envelope?.allowed_hosts).toBeUndefined();
  });

  it('allowed_hosts is capped like allowed_paths', async () => {
    const many = Array.from({ length: 30 }, (_, i) => `    - {host: h${i}.example, action: allow}\n`).join(
      '',
    );
    const d = await guardOf(POLICY(many)).check(
      { tool: 'WebFetch', args: { url: 'https://evil.example.com/' } },
      ctx,
    );
    expect(d.envelope?.allowed_hosts).toHaveLength(20);
    expect(d.envelope?.allowed_hosts_omitted).toBeGreaterThan(10);
  });

  it('no network section: every host is reached as before (no reach extracted, no finding)', async () => {
    const d = await guardOf('rules:\n  - {pattern: "<workspace>/**", access: write}\n').check(
      { tool: 'WebFetch', args: { url: 'https://evil.example.com/' } },
      ctx,
    );
    expect(d.action).toBe('allow');
    expect(d.network).toBeUndefined();
  });
});

/** Stands in for the shell's network extractors: `curl URL` reaches its host; `curl "$U"` an unknown one. */
const curlReach: GuardPlugin = {
  name: 'curl-reach',
  apply(hooks) {
    hooks.collectAccesses.tap({ stage: Stage.EXTRACT }, (accesses, call, state) => {
      const command = String(call.args.command);
      state.claim('shell');
      for (const word of command.split(' ').slice(1)) {
        const t = parseTarget(word.replace(/"/g, ''), 'https');
        state.reach({
          raw: word,
          host: t.host,
          method: 'read',
          origin: 'shell:curl',
          certain: t.certain,
          ...(t.port !== undefined ? { port: t.port } : {}),
          ...(t.scheme !== undefined ? { scheme: t.scheme } : {}),
          ...(t.reason ? { reason: t.reason } : {}),
        });
      }
      return accesses;
    });
  },
};

describe('shell reaches and the sandbox', () => {
  it('an uncertain host under sandbox: uncertain is deferred to the sandbox; a denied host stays denied', async () => {
    const policy = loadPolicy({ file, source: `${POLICY()}sandbox: uncertain\n` });
    const g = createGuard({
      plugins: [curlReach, folderRules({ policy })],
      sandbox: sandbox({
        policy,
        // The rewritten line starts the proxy itself (the CLI's `toolgate sandbox-exec`); not run here.
        network: { launcher: (socket) => ['toolgate', 'sandbox-exec', '--proxy-socket', socket, '--'] },
      }),
    });
    const unknown = await g.check({ tool: 'Bash', args: { command: 'curl "$U"' } }, ctx);
    expect(unknown.action).toBe('allow');
    expect(unknown.sandboxed?.uncertain.map((f) => f.code)).toEqual(['NETWORK_UNCERTAIN']);
    const denied = await g.check({ tool: 'Bash', args: { command: 'curl https://evil.example.com/' } }, ctx);
    expect(denied.envelope).toMatchObject({ code: 'NETWORK_DENIED', host: 'evil.example.com' });
    const both = await g.check(
      { tool: 'Bash', args: { command: 'curl "$U" https://evil.example.com/' } },
      ctx,
    );
    expect(both.envelope?.code).toBe('NETWORK_DENIED');
    const allowed = await g.check(
      { tool: 'Bash', args: { command: 'curl https://registry.npmjs.org/x' } },
      ctx,
    );
    expect(allowed.action).toBe('allow');
    expect(allowed.sandboxed).toBeUndefined();
  });

  it('without a sandbox the uncertain host is denied', async () => {
    const g = createGuard({ plugins: [curlReach, folderRules({ file, source: POLICY() })] });
    const d = await g.check({ tool: 'Bash', args: { command: 'curl "$U"' } }, ctx);
    expect(d.envelope?.code).toBe('NETWORK_UNCERTAIN');
  });
});

describe('Gemini CLI web_fetch: the URLs in its prompt', () => {
  it('each URL in the prompt text is judged; a prompt naming only allowed hosts passes', async () => {
    const g = guardOf(POLICY());
    const bad = await g.check(
      {
        tool: 'web_fetch',
        args: { prompt: 'Summarise https://docs.example.org/a and https://evil.example.com/b.' },
      },
      ctx,
    );
    expect(bad.envelope).toMatchObject({ code: 'NETWORK_DENIED', host: 'evil.example.com' });
    const good = await g.check(
      {
        tool: 'web_fetch',
        args: { prompt: 'Compare https://docs.example.org/a, https://www.example.org/b.' },
      },
      ctx,
    );
    expect(good.action).toBe('allow');
    expect(good.network?.map((n) => n.raw)).toEqual([
      'https://docs.example.org/a',
      'https://www.example.org/b',
    ]);
  });
});

describe('a tool named fetch is not taken for a pathless one', () => {
  it("another server's fetch {path} is still judged by the path policy; the fetch server's {url} by the network", async () => {
    const g = guardOf(POLICY());
    const paths = await g.check({ tool: 'mcp__files__fetch', args: { path: '/etc/shadow' } }, ctx);
    expect(paths.action).toBe('deny');
    expect(paths.reasons[0]?.code).not.toMatch(/^NETWORK/);
    const url = await g.check(
      { tool: 'fetch', args: { url: 'https://evil.example.com/', max_length: 5000 } },
      ctx,
    );
    expect(url.envelope).toMatchObject({ code: 'NETWORK_DENIED', host: 'evil.example.com' });
    const twin = await g.check(
      { tool: 'fetch', args: { url: 'https://docs.example.org/', max_length: 5000 } },
      ctx,
    );
    expect(twin.action).toBe('allow');
  });
});
