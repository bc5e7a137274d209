import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGuard, type GuardPlugin, parseTarget } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { auditLog } from '../src/index.js';
import { context, tempDir } from './helpers.js';

function lines(file: string): Array<Record<string, unknown>> {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** A small network policy: `url` args are reaches; evil.example is denied. */
const hostPolicy: GuardPlugin = {
  name: 'host-policy',
  policy: true,
  apply(hooks) {
    hooks.collectAccesses.tap('x', (accesses, call, state) => {
      for (const raw of [call.args.url, call.args.upload]) {
        if (typeof raw !== 'string') continue;
        const t = parseTarget(raw);
        state.reach({
          raw,
          host: t.host,
          method: raw === call.args.upload ? 'write' : 'read',
          origin: 'args',
          certain: t.certain,
          ...(t.port !== undefined ? { port: t.port } : {}),
          ...(t.scheme !== undefined ? { scheme: t.scheme } : {}),
        });
      }
      return accesses;
    });
    hooks.beforeToolCall.tap('x', (_call, state) => {
      for (const n of state.network)
        if (n.host === 'evil.example')
          return {
            action: 'deny',
            code: 'NETWORK_DENIED',
            reason: 'host matches deny rule deny evil.example',
            network: n,
            rule: {
              plugin: 'host-policy',
              pattern: 'deny evil.example',
              access: 'deny',
              source: 'p.yaml#network.rules[0]',
            },
          };
      return undefined;
    });
  },
};

describe('audit records carry the hosts a call reaches', () => {
  it('a network deny records the host, its method as the operation, the rule and every host reached', async () => {
    const root = tempDir();
    const file = join(root, 'v.log');
    const guard = createGuard({ plugins: [hostPolicy, auditLog({ file })] });
    await guard.check(
      { tool: 'WebFetch', args: { url: 'https://ok.example/a', upload: 'https://evil.example:8443/u' } },
      context(root),
    );
    const [r] = lines(file);
    expect(r).toMatchObject({
      level: 'SECURITY_VIOLATION',
      code: 'NETWORK_DENIED',
      operation: 'write',
      attemptedHost: 'evil.example',
      rule: { pattern: 'deny evil.example', source: 'p.yaml#network.rules[0]' },
      hosts: [
        {
          raw: 'https://ok.example/a',
          host: 'ok.example',
          port: 443,
          scheme: 'https',
          method: 'read',
          certain: true,
        },
        {
          raw: 'https://evil.example:8443/u',
          host: 'evil.example',
          port: 8443,
          method: 'write',
          certain: true,
        },
      ],
    });
    expect(r!.attemptedPath).toBeUndefined();
  });

  it('twin: an allowed call records its hosts (auditing allows), a call reaching none has no hosts field', async () => {
    const root = tempDir();
    const file = join(root, 'all.log');
    const guard = createGuard({ plugins: [hostPolicy, auditLog({ file, level: 'all' })] });
    await guard.check({ tool: 'WebFetch', args: { url: 'https://ok.example/a' } }, context(root));
    await guard.check({ tool: 'WebSearch', args: { query: 'x' } }, context(root));
    const [allowed, none] = lines(file);
    expect(allowed).toMatchObject({ decision: 'allow', hosts: [{ host: 'ok.example', method: 'read' }] });
    expect(none!.hosts).toBeUndefined();
  });
});
