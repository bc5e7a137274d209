import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isToolgateError, type ToolgateError } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { type DialectName, loadPolicy, policySchema } from '../src/index.js';

function configError(fn: () => unknown): ToolgateError {
  try {
    fn();
  } catch (error) {
    if (!isToolgateError(error)) throw error;
    expect(error.code).toBe('TOOLGATE_ERR_INVALID_CONFIG');
    return error;
  }
  throw new Error('expected a config error');
}

const BASE = `rules:\n  - {pattern: "<workspace>/**", access: write}\n`;

describe('native dialect: the network section', () => {
  it('is compiled onto policy.network, with rule sources naming the file', () => {
    const p = loadPolicy({
      file: '/ws/toolgate.yaml',
      source: `${BASE}network:\n  default: deny\n  presets: [npm]\n  rules:\n    - {host: "*.example.com", action: allow, method: read}\n`,
    });
    expect(p.network?.unrestricted).toBe(false);
    expect(p.network?.decide({ host: 'a.example.com', method: 'read' })).toEqual({
      action: 'allow',
      rule: 'allow *.example.com read',
      source: '/ws/toolgate.yaml#network.rules[0]',
    });
    expect(p.network?.decide({ host: 'a.example.com', method: 'write' }).action).toBe('deny');
    expect(p.network?.decide({ host: 'registry.npmjs.org', method: 'read' }).source).toBe(
      '/ws/toolgate.yaml#network.presets[0]',
    );
  });

  it('no section: policy.network is undefined and the hash is what it was without one', () => {
    const without = loadPolicy({ file: '/ws/toolgate.yaml', source: BASE });
    expect(without.network).toBeUndefined();
    expect('network' in without).toBe(false);
    const withNet = loadPolicy({
      file: '/ws/toolgate.yaml',
      source: `${BASE}network: {default: deny}\n`,
    });
    expect(withNet.hash).not.toBe(without.hash);
  });

  it('every seed dialect fixture loads without a network section (no seed describes one)', () => {
    const dir = join(__dirname, 'fixtures', 'policies');
    const prefixes: Record<string, DialectName> = {
      fg: 'folderguard',
      wl: 'wunderland',
      wolo: 'wolo',
      hermes: 'hermes',
      openfang: 'openfang',
    };
    const seen = new Set<string>();
    for (const name of readdirSync(dir)) {
      const dialect = prefixes[name.split(/[-.]/)[0] ?? ''];
      if (!dialect) continue;
      const file = join(dir, name);
      const p = loadPolicy({
        dialect,
        file,
        source: readFileSync(file, 'utf8'),
        env: { HERMES_HOME: '/h', HOME: '/home/u' },
      });
      expect(p.network, name).toBeUndefined();
      seen.add(dialect);
    }
    expect(seen.size).toBe(5);
  });

  it.each([
    [
      'network:\n  rules:\n    - {host: "a.*.com", action: allow}\n',
      /field network\.rules\[0\]\.host: a wildcard/,
    ],
    ['network:\n  rulez: []\n', /field network\.rulez/],
    ['network:\n  presets: [npmm]\n', /field network\.presets\[0\].*"npmm"/],
    ['network:\n  default: read\n', /field network\.default/],
    [
      'network:\n  rules:\n    - {host: x.com, action: allow, ports: [0]}\n',
      /field network\.rules\[0\]\.ports\[0\].*got 0/,
    ],
    [
      'agents:\n  a:\n    network:\n      rules: [{host: "10.0.0.1/8", action: deny}]\n',
      /field agents\.a\.network\.rules\[0\]\.host/,
    ],
  ])('a bad section fails at load naming file, field and value: %j', (source, message) => {
    const e = configError(() => loadPolicy({ file: '/ws/toolgate.yaml', source }));
    expect(e.message).toContain('/ws/toolgate.yaml');
    expect(e.message).toMatch(message);
  });

  it('the JSON Schema describes the section', () => {
    const schema = JSON.stringify(policySchema());
    expect(schema).toContain('"presets"');
    expect(schema).toContain('"schemes"');
  });
});

describe('network layering', () => {
  const base = `${BASE}network:\n  default: deny\n  presets: [github]\n  rules:\n    - {host: evil.example, action: deny}\n`;

  it('an agent overlay that narrows is accepted and used', () => {
    const p = loadPolicy({
      file: '/ws/p.yaml',
      source: `${base}agents:\n  x:\n    narrowOnly: true\n    network:\n      rules: [{host: github.com, action: allow, method: read}]\n`,
      agent: 'x',
    });
    expect(p.network?.decide({ host: 'github.com', method: 'read' }).action).toBe('allow');
    expect(p.network?.decide({ host: 'github.com', method: 'write' }).action).toBe('deny');
    expect(p.network?.decide({ host: 'api.github.com', method: 'read' }).action).toBe('deny');
  });

  it('a narrowOnly overlay that widens the network is refused, naming the host', () => {
    const e = configError(() =>
      loadPolicy({
        file: '/ws/p.yaml',
        source: `${base}agents:\n  x:\n    narrowOnly: true\n    network:\n      presets: [github]\n      rules: [{host: "*.npmjs.org", action: allow}]\n`,
        agent: 'x',
      }),
    );
    expect(e.message).toMatch(/narrowOnly but widens (read|write) of [a-z.-]*npmjs\.org from deny to allow/);
  });

  it('a narrowOnly overlay cannot loosen the default nor lift a deny', () => {
    expect(
      configError(() =>
        loadPolicy({
          file: '/ws/p.yaml',
          source: `${base}agents:\n  x:\n    narrowOnly: true\n    network: {default: prompt}\n`,
          agent: 'x',
        }),
      ).message,
    ).toMatch(/widens .* from deny to prompt/);
    expect(
      configError(() =>
        loadPolicy({
          file: '/ws/p.yaml',
          source: `${base}agents:\n  x:\n    narrowOnly: true\n    network:\n      rules: [{host: evil.example, action: allow}]\n`,
          agent: 'x',
        }),
      ).message,
    ).toMatch(/evil\.example from deny to allow/);
  });

  it('without narrowOnly an agent overlay replaces the rules and inherits the default', () => {
    const p = loadPolicy({
      file: '/ws/p.yaml',
      source: `${base}agents:\n  x:\n    network:\n      rules: [{host: "*.npmjs.org", action: allow}]\n`,
      agent: 'x',
    });
    expect(p.network?.decide({ host: 'registry.npmjs.org', method: 'read' }).action).toBe('allow');
    expect(p.network?.decide({ host: 'github.com', method: 'read' }).action).toBe('deny');
    expect(p.network?.defaultAction).toBe('deny');
  });

  it('a narrowOnly overlay may add a network section to a base without one', () => {
    const p = loadPolicy({
      file: '/ws/p.yaml',
      source: `${BASE}agents:\n  x:\n    narrowOnly: true\n    network: {default: deny}\n`,
      agent: 'x',
    });
    expect(p.network?.decide({ host: 'github.com', method: 'read' }).action).toBe('deny');
  });
});

describe('folderRules({rules, network}): the section inline', () => {
  it('compiles onto compiled.network; a bad value names inline, field and value; not beside a policy file', async () => {
    const { folderRules } = await import('../src/index.js');
    const plugin = folderRules({
      rules: [{ pattern: '<workspace>/**', access: 'write' }],
      network: { default: 'deny', presets: ['pypi'] },
    });
    expect(plugin.compiled.network?.decide({ host: 'pypi.org', method: 'read' }).action).toBe('allow');
    expect(plugin.compiled.network?.decide({ host: 'evil.example', method: 'read' }).rule).toBe(
      'default: deny',
    );
    expect(() => folderRules({ rules: [], network: { rules: [{ host: '*x', action: 'allow' }] } })).toThrow(
      /inline: field network\.rules\[0\]\.host: .*"\*x"/,
    );
    expect(() =>
      folderRules({ source: 'default: deny\n', file: 'p.yaml', network: { default: 'deny' } }),
    ).toThrow(/option network/);
    expect(folderRules({ rules: [] }).compiled.network).toBeUndefined();
  });
});
