import { compileNetworkPolicy, createGuard } from '@toolgate/core';
import { folderRules } from '@toolgate/folder-rules';
import { runSuite } from './harness.js';

// Issue 26: the host matcher on the decision path (and in the sandbox's proxy, per connection). Policies of
// N rules shaped like real ones — exact hosts, `*.x` wildcards, CIDR ranges, presets — asked about an exact
// host, a deep subdomain, an address and a host no rule names. The cost should barely grow with N.
function spec(n: number): Record<string, unknown> {
  const rules: Record<string, unknown>[] = [{ host: 'evil.example.com', action: 'deny' }];
  for (let i = 0; rules.length < n; i++) {
    const k = i % 4;
    if (k === 0) rules.push({ host: `api${i}.example.net`, action: 'allow' });
    else if (k === 1) rules.push({ host: `*.svc${i}.example.org`, action: 'allow', method: 'read' });
    else if (k === 2) rules.push({ host: `10.${i % 256}.0.0/16`, action: 'allow' });
    else rules.push({ host: `push${i}.example.net`, action: 'prompt', method: 'write', ports: [443] });
  }
  return { default: 'deny', presets: ['npm', 'pypi', 'github'], rules };
}

export default async function networkBench(): Promise<void> {
  const decide: { name: string; fn: () => unknown }[] = [];
  for (const n of [10, 100, 1_000]) {
    const net = compileNetworkPolicy(spec(n), `bench-${n}.yaml`);
    const exact = { host: 'registry.npmjs.org', port: 443, scheme: 'https', method: 'read' as const };
    const deep = { host: 'a.b.svc1.example.org', port: 443, scheme: 'https', method: 'read' as const };
    const addr = { host: '10.2.3.4', port: 5432, method: 'write' as const };
    const none = { host: 'unlisted.example.com', port: 443, scheme: 'https', method: 'write' as const };
    if (net.decide(exact).action !== 'allow' || net.decide(none).action !== 'deny')
      throw new Error('bench policy does not decide as expected');
    decide.push({ name: `decide exact host, ${n} rules`, fn: () => net.decide(exact) });
    decide.push({ name: `decide *.x subdomain, ${n} rules`, fn: () => net.decide(deep) });
    decide.push({ name: `decide IPv4 in a CIDR, ${n} rules`, fn: () => net.decide(addr) });
    decide.push({ name: `decide unlisted (default), ${n} rules`, fn: () => net.decide(none) });
  }
  await runSuite('network: compiled host matcher, one decide() (normalise + match)', decide);

  const ctx = { sessionId: 's', agentId: 'a', cwd: '/ws', workspace: '/ws', home: '/home/u', env: {} };
  const withNet = createGuard({
    plugins: [
      folderRules({
        file: '/ws/toolgate.yaml',
        source: `rules: [{pattern: "<workspace>/**", access: write}]\nnetwork: {default: deny, presets: [npm]}\n`,
      }),
    ],
  });
  const without = createGuard({
    plugins: [
      folderRules({
        file: '/ws/toolgate.yaml',
        source: 'rules: [{pattern: "<workspace>/**", access: write}]\n',
      }),
    ],
  });
  const call = { tool: 'WebFetch', args: { url: 'https://registry.npmjs.org/react', prompt: 'p' } };
  await runSuite('network: guard.check of a WebFetch call (URL extraction + judgement)', [
    { name: 'WebFetch, no network section (not judged)', fn: () => without.check(call, ctx) },
    { name: 'WebFetch, network section (allowed by preset)', fn: () => withNet.check(call, ctx) },
  ]);
}
