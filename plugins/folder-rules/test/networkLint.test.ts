import type { CallContext } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { explain, formatExplain, lint, loadPolicy } from '../src/index.js';

const ctx: CallContext = {
  sessionId: 's',
  agentId: 'a',
  cwd: '/ws',
  workspace: '/ws',
  home: '/home/u',
  env: {},
};
const load = (source: string) => loadPolicy({ file: '/ws/toolgate.yaml', source });

describe('lint: network tests', () => {
  it('host tests pass and fail against the network section, naming the rule that decided', async () => {
    const p = load(`rules: [{pattern: "<workspace>/**", access: write}]
network:
  default: deny
  presets: [npm]
  rules:
    - {host: evil.example, action: deny}
    - {host: "*.docs.example", action: allow, method: read}
tests:
  - {host: "https://registry.npmjs.org/react", expect: allow}
  - {host: "https://a.docs.example/x", expect: allow}
  - {host: "https://a.docs.example/x", method: write, expect: deny}
  - {host: "http://ok.example@evil.example/", expect: deny}
  - {host: "https://evil.example/", expect: allow}
  - {path: "<workspace>/x", op: write, expect: allow}
`);
    const r = await lint(p, { ctx });
    expect(r.tests).toEqual({ passed: 5, failed: 1 });
    const failed = r.errors.filter((e) => e.code === 'test-failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]?.message).toMatch(
      /expected allow for read of https:\/\/evil\.example\/, got deny \(deny evil\.example \(\/ws\/toolgate\.yaml#network\.rules\[0\]\)\)/,
    );
    expect(failed[0]?.source).toBe('toolgate:/ws/toolgate.yaml#tests[4]');
  });

  it('without a network section every host test expects allow', async () => {
    const r = await lint(
      load('default: deny\ntests:\n  - {host: "https://anything.example/", method: write, expect: allow}\n'),
      { ctx },
    );
    expect(r.tests).toEqual({ passed: 1, failed: 0 });
  });

  it('a test with both path and host is refused at load', () => {
    expect(() => load('tests:\n  - {host: x.example, path: /x, expect: allow}\n')).toThrow(
      /tests\.0.*one of `call`, `path` or `host`/,
    );
  });
});

describe('lint: network rules that can never apply', () => {
  it('a duplicate, a preset host restated, an allow beside an equally specific deny: warned; live rules are not', async () => {
    const p = load(`network:
  default: deny
  presets: [github]
  rules:
    - {host: api.example, action: allow}
    - {host: api.example, action: allow}
    - {host: github.com, action: allow}
    - {host: "*.corp.example", action: allow}
    - {host: ".corp.example", action: deny}
    - {host: "*.example", action: prompt}
    - {host: "10.0.0.0/8", action: allow}
    - {host: "10.1.0.0/16", action: deny}
    - {host: gitlab.com, action: allow, method: read}
    - {host: gitlab.com, action: prompt}
`);
    const r = await lint(p, { ctx });
    const shadowed = r.warnings.filter((w) => w.code === 'network-rule-shadowed');
    const sources = shadowed.map((w) => w.source).sort();
    expect(sources).toEqual(
      [
        '/ws/toolgate.yaml#network.rules[2]',
        '/ws/toolgate.yaml#network.rules[1]',
        '/ws/toolgate.yaml#network.rules[3]',
      ].sort(),
    );
    expect(shadowed.find((w) => w.source.endsWith('rules[3]'))?.message).toMatch(
      /allow \*\.corp\.example never applies: deny \.corp\.example/,
    );
  });
});

describe('explain: each reach with the rule that decided', () => {
  it('shows the host, port, method, origin and rule for a denied and an allowed URL', async () => {
    const p = load(
      `network:\n  default: deny\n  rules:\n    - {host: "*.docs.example", action: allow}\n    - {host: evil.example, action: deny}\n`,
    );
    const denied = await explain(
      p,
      { tool: 'WebFetch', args: { url: 'https://ok.docs.example@evil.example:8443/x' } },
      ctx,
    );
    expect(denied.decision).toBe('deny');
    expect(denied.network).toEqual([
      expect.objectContaining({
        host: 'evil.example',
        port: 8443,
        method: 'read',
        decision: 'deny',
        rule: 'deny evil.example',
        source: '/ws/toolgate.yaml#network.rules[1]',
      }),
    ]);
    const text = formatExplain(denied);
    expect(text).toContain(
      'reach 1: read "https://ok.docs.example@evil.example:8443/x" -> evil.example:8443 via folder-rules:args.url',
    );
    expect(text).toContain('=> deny: deny evil.example   (/ws/toolgate.yaml#network.rules[1])');
    const allowed = await explain(p, { tool: 'WebFetch', args: { url: 'https://a.docs.example/' } }, ctx);
    expect(formatExplain(allowed)).toContain(
      '=> allow: allow *.docs.example   (/ws/toolgate.yaml#network.rules[0])',
    );
  });
});

describe('describeTools: a URL tool is told the hosts it may fetch from', () => {
  it('WebFetch lists the allowed hosts; a path tool and an unrestricted policy are left as they were', async () => {
    const { folderRules } = await import('../src/index.js');
    const { createGuard } = await import('@toolgate/core');
    const guard = createGuard({
      plugins: [
        folderRules({
          rules: [{ pattern: '<workspace>/**', access: 'write' }],
          network: { default: 'prompt', presets: ['npm'] },
        }),
      ],
    });
    const [fetchTool, search] = guard.describeTools([
      { name: 'WebFetch', description: 'Fetch a URL.' },
      { name: 'WebSearch', description: 'Search.' },
    ]);
    expect(fetchTool?.description).toContain('You can ONLY fetch from these hosts:\nregistry.npmjs.org');
    expect(fetchTool?.description).toContain('Other hosts need the user’s approval.');
    expect(search?.description).toBe('Search.');
    // applied twice: one block, not two
    const again = guard.describeTools([{ name: 'WebFetch', description: fetchTool?.description ?? '' }]);
    expect(again[0]?.description.split('NETWORK ACCESS').length).toBe(2);
    const open = createGuard({ plugins: [folderRules({ rules: [] })] });
    expect(open.describeTools([{ name: 'WebFetch', description: 'Fetch a URL.' }])[0]?.description).toBe(
      'Fetch a URL.',
    );
  });
});
