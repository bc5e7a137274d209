import { describe, expect, it } from 'vitest';
import {
  compileNetworkPolicy,
  isToolgateError,
  type NetMethod,
  type NetworkPolicy,
  parseTarget,
} from '../src/index.js';

const FILE = '/ws/toolgate.yaml';

/** What the policy decides for a URL (or host spec) as an extractor would hand it over. */
function decideUrl(p: NetworkPolicy, raw: string, method: NetMethod = 'read', scheme?: string) {
  const t = parseTarget(raw, scheme);
  if (t.host === null) throw new Error(`no host in ${raw}`);
  return p.decide({
    host: t.host,
    method,
    ...(t.port !== undefined ? { port: t.port } : {}),
    ...(t.scheme !== undefined ? { scheme: t.scheme } : {}),
  });
}

function configErrorOf(spec: unknown): { field: unknown; message: string } {
  try {
    compileNetworkPolicy(spec, FILE);
  } catch (error) {
    if (!isToolgateError(error)) throw error;
    expect(error.code).toBe('TOOLGATE_ERR_INVALID_CONFIG');
    return { field: error.details.field, message: error.message };
  }
  throw new Error('compiled a bad section');
}

describe('network matcher: patterns', () => {
  const p = compileNetworkPolicy(
    {
      default: 'deny',
      rules: [
        { host: 'ok.com', action: 'allow' },
        { host: '*.npmjs.org', action: 'allow' },
        { host: '.example.org', action: 'allow' },
        { host: '10.0.0.0/8', action: 'allow' },
        { host: 'fd00::/8', action: 'allow' },
        { host: '192.0.2.10', action: 'allow' },
      ],
    },
    FILE,
  );

  it('exact names match only themselves, case and trailing dot normalised', () => {
    expect(decideUrl(p, 'https://ok.com/x').action).toBe('allow');
    expect(decideUrl(p, 'https://OK.COM./x').action).toBe('allow');
    expect(decideUrl(p, 'https://sub.ok.com/x').action).toBe('deny');
    expect(decideUrl(p, 'https://notok.com/x').action).toBe('deny');
  });

  it('*.suffix matches subdomains at any depth, not the suffix itself; .suffix matches both', () => {
    expect(decideUrl(p, 'https://registry.npmjs.org/').action).toBe('allow');
    expect(decideUrl(p, 'https://a.b.npmjs.org/').action).toBe('allow');
    expect(decideUrl(p, 'https://npmjs.org/').action).toBe('deny');
    expect(decideUrl(p, 'https://example.org/').action).toBe('allow');
    expect(decideUrl(p, 'https://www.example.org/').action).toBe('allow');
    expect(decideUrl(p, 'https://badexample.org/').action).toBe('deny');
  });

  it('evil.com.ok.com is not ok.com; ok.com.evil.com is not ok.com either', () => {
    const wide = compileNetworkPolicy(
      { default: 'deny', rules: [{ host: '*.ok.com', action: 'allow' }] },
      FILE,
    );
    expect(decideUrl(wide, 'https://evil.com.ok.com/').action).toBe('allow'); // a subdomain of ok.com: allowed twin
    expect(decideUrl(wide, 'https://ok.com.evil.com/').action).toBe('deny');
    expect(decideUrl(p, 'https://ok.com.evil.com/').action).toBe('deny');
    expect(decideUrl(p, 'https://evil.com.ok.com/').action).toBe('deny');
  });

  it('CIDR ranges and exact addresses, IPv4 and IPv6', () => {
    expect(decideUrl(p, 'http://10.1.2.3/').action).toBe('allow');
    expect(decideUrl(p, 'http://11.1.2.3/').action).toBe('deny');
    expect(decideUrl(p, 'http://[fd12::1]/').action).toBe('allow');
    expect(decideUrl(p, 'http://[fe80::1]/').action).toBe('deny');
    expect(decideUrl(p, 'http://192.0.2.10/').action).toBe('allow');
    expect(decideUrl(p, 'http://192.0.2.11/').action).toBe('deny');
  });

  it('IPv4-mapped IPv6 addresses are judged by IPv4 rules', () => {
    expect(decideUrl(p, 'http://[::ffff:10.0.0.5]/').action).toBe('allow');
    expect(decideUrl(p, 'http://[::ffff:11.0.0.5]/').action).toBe('deny');
    const deny = compileNetworkPolicy(
      { default: 'allow', rules: [{ host: '127.0.0.0/8', action: 'deny' }] },
      FILE,
    );
    expect(decideUrl(deny, 'http://[::ffff:127.0.0.1]:8080/').action).toBe('deny');
    expect(decideUrl(deny, 'http://[0:0:0:0:0:ffff:7f00:1]/').action).toBe('deny');
    expect(decideUrl(deny, 'http://[::ffff:8.8.8.8]/').action).toBe('allow');
  });
});

describe('network matcher: encoded hosts (attacks with allowed twins)', () => {
  const p = compileNetworkPolicy(
    {
      default: 'allow',
      rules: [
        { host: 'localhost', action: 'deny' },
        { host: 'evil.com', action: 'deny' },
        { host: 'xn--pple-43d.com', action: 'deny' },
      ],
    },
    FILE,
  );

  it('userinfo does not make a URL reach the host before the @', () => {
    const r = decideUrl(p, 'http://ok.com@evil.com/');
    expect(r).toMatchObject({ action: 'deny', rule: 'deny evil.com', source: `${FILE}#network.rules[1]` });
    expect(decideUrl(p, 'http://evil.com@ok.com/').action).toBe('allow');
    expect(decideUrl(p, 'http://user:pw@ok.com/').action).toBe('allow');
  });

  it('decimal, hex and octal IPv4 are the loopback address', () => {
    for (const raw of [
      'http://2130706433/',
      'http://0x7f000001/',
      'http://0177.0.0.1/',
      'http://127.1/',
      'http://0x7f.1/',
    ])
      expect(decideUrl(p, raw).action, raw).toBe('deny');
    expect(decideUrl(p, 'http://2130706431/').action).toBe('allow'); // 126.255.255.255
    expect(decideUrl(p, 'http://128.0.0.1/').action).toBe('allow');
  });

  it('loopback in every spelling: localhost, *.localhost, 127/8, ::1, 0.0.0.0, ::', () => {
    for (const raw of [
      'http://localhost/',
      'http://LOCALHOST./',
      'http://api.localhost/',
      'http://127.8.9.10/',
      'http://[::1]/',
      'http://0.0.0.0:8080/',
      'http://[::]/',
      'http://[::ffff:127.0.0.1]/',
    ])
      expect(decideUrl(p, raw).action, raw).toBe('deny');
    expect(decideUrl(p, 'http://localhost.example.com/').action).toBe('allow');
    expect(decideUrl(p, 'http://[::2]/').action).toBe('allow');
  });

  it('IDNA: a homograph is matched in its punycode form', () => {
    // Cyrillic "а" in аpple.com is xn--pple-43d.com, not apple.com.
    expect(decideUrl(p, 'https://аpple.com/').action).toBe('deny');
    expect(decideUrl(p, 'https://xn--pple-43d.com/').action).toBe('deny');
    expect(decideUrl(p, 'https://apple.com/').action).toBe('allow');
    const uni = compileNetworkPolicy(
      { default: 'deny', rules: [{ host: 'bücher.de', action: 'allow' }] },
      FILE,
    );
    expect(decideUrl(uni, 'https://xn--bcher-kva.de/').action).toBe('allow');
    expect(decideUrl(uni, 'https://bucher.de/').action).toBe('deny');
  });

  it('uppercase and trailing dots name the same host', () => {
    expect(decideUrl(p, 'https://EVIL.COM/').action).toBe('deny');
    expect(decideUrl(p, 'https://evil.com./').action).toBe('deny');
    expect(decideUrl(p, 'https://evil.co/').action).toBe('allow');
  });

  it('a host given un-normalised to decide() is normalised there', () => {
    expect(p.decide({ host: 'EVIL.com.', method: 'read' }).action).toBe('deny');
    expect(p.decide({ host: '2130706433', method: 'read' }).action).toBe('deny');
    expect(p.decide({ host: '[::1]', method: 'read' }).action).toBe('deny');
    expect(p.decide({ host: 'ok.com', method: 'read' }).action).toBe('allow');
    // forms a fast path for already-normal names must not take as names
    expect(p.decide({ host: '127.1', method: 'read' }).action).toBe('deny');
    expect(p.decide({ host: '0x7f.1', method: 'read' }).action).toBe('deny');
    expect(p.decide({ host: 'a.0x7f000001', method: 'read' }).action).toBe('deny'); // not a host at all
    expect(p.decide({ host: 'xn--pple-43d.com', method: 'read' }).action).toBe('deny');
    expect(p.decide({ host: 'v1.api.ok.com', method: 'read' }).action).toBe('allow');
  });

  it('no host at all is denied, never allowed', () => {
    expect(p.decide({ host: '', method: 'read' }).action).toBe('deny');
    expect(p.decide({ host: 'a b', method: 'read' }).action).toBe('deny');
    expect(p.decide(null as never).action).toBe('deny');
  });
});

describe('network matcher: precedence', () => {
  it('a deny of evil.com is not out-ranked by allow *', () => {
    const p = compileNetworkPolicy(
      {
        default: 'deny',
        rules: [
          { host: '*', action: 'allow' },
          { host: 'evil.com', action: 'deny' },
        ],
      },
      FILE,
    );
    expect(p.decide({ host: 'evil.com', method: 'read' })).toMatchObject({
      action: 'deny',
      rule: 'deny evil.com',
    });
    expect(p.decide({ host: 'good.com', method: 'read' })).toMatchObject({
      action: 'allow',
      rule: 'allow *',
    });
  });

  it('the most specific pattern wins: an exception carved out of a wildcard deny', () => {
    const p = compileNetworkPolicy(
      {
        default: 'allow',
        rules: [
          { host: '*.example.com', action: 'deny' },
          { host: 'api.example.com', action: 'allow' },
          { host: '*.corp.example.com', action: 'prompt' },
        ],
      },
      FILE,
    );
    expect(p.decide({ host: 'api.example.com', method: 'write' }).action).toBe('allow');
    expect(p.decide({ host: 'www.example.com', method: 'read' }).action).toBe('deny');
    expect(p.decide({ host: 'x.corp.example.com', method: 'read' }).action).toBe('prompt');
    expect(p.decide({ host: 'example.com', method: 'read' }).action).toBe('allow');
  });

  it('equally specific: more filters win, then the more restrictive', () => {
    const p = compileNetworkPolicy(
      {
        default: 'deny',
        rules: [
          { host: 'github.com', action: 'allow' },
          { host: 'github.com', action: 'prompt', method: 'write' },
          { host: 'gitlab.com', action: 'allow' },
          { host: 'gitlab.com', action: 'deny' },
        ],
      },
      FILE,
    );
    expect(p.decide({ host: 'github.com', method: 'read' }).action).toBe('allow');
    expect(p.decide({ host: 'github.com', method: 'write' }).action).toBe('prompt');
    expect(p.decide({ host: 'gitlab.com', method: 'read' }).action).toBe('deny');
  });

  it('CIDR by prefix length; an exact address outranks a range', () => {
    const p = compileNetworkPolicy(
      {
        default: 'allow',
        rules: [
          { host: '10.0.0.0/8', action: 'deny' },
          { host: '10.1.0.0/16', action: 'allow' },
          { host: '10.1.2.3', action: 'prompt' },
        ],
      },
      FILE,
    );
    expect(p.decide({ host: '10.9.0.1', method: 'read' }).action).toBe('deny');
    expect(p.decide({ host: '10.1.9.9', method: 'read' }).action).toBe('allow');
    expect(p.decide({ host: '10.1.2.3', method: 'read' }).action).toBe('prompt');
  });

  it('method, port and scheme filters; an unknown port never satisfies an allow but does a deny', () => {
    const p = compileNetworkPolicy(
      {
        default: 'deny',
        rules: [
          { host: 'ok.com', action: 'allow', method: 'read', ports: [443], schemes: ['https'] },
          { host: 'ssh.ok.com', action: 'deny', ports: [22] },
          { host: 'ssh.ok.com', action: 'allow' },
        ],
      },
      FILE,
    );
    expect(decideUrl(p, 'https://ok.com/').action).toBe('allow');
    expect(decideUrl(p, 'https://ok.com/', 'write').action).toBe('deny');
    expect(decideUrl(p, 'http://ok.com:443/').action).toBe('deny');
    expect(decideUrl(p, 'https://ok.com:8443/').action).toBe('deny');
    expect(p.decide({ host: 'ok.com', method: 'read' }).action).toBe('deny');
    expect(decideUrl(p, 'git@ssh.ok.com:o/r.git', 'read', 'ssh').action).toBe('deny');
    expect(decideUrl(p, 'https://ssh.ok.com/').action).toBe('allow');
    expect(p.decide({ host: 'ssh.ok.com', method: 'read' }).action).toBe('deny');
  });

  it('the default decides what no rule matches, and says so', () => {
    for (const d of ['allow', 'deny', 'prompt'] as const) {
      const p = compileNetworkPolicy({ default: d, rules: [{ host: 'x.com', action: 'deny' }] }, FILE);
      expect(p.decide({ host: 'y.com', method: 'read' })).toEqual({ action: d, rule: `default: ${d}` });
    }
    expect(compileNetworkPolicy({}, FILE).decide({ host: 'y.com', method: 'read' }).action).toBe('deny');
  });
});

describe('network policy: presets, allowedHosts, unrestricted, hash', () => {
  it('presets expand to allow rules with their source', () => {
    const p = compileNetworkPolicy({ presets: ['npm', 'pypi', 'github'] }, FILE);
    expect(p.decide({ host: 'registry.npmjs.org', method: 'read' })).toEqual({
      action: 'allow',
      rule: 'allow registry.npmjs.org (preset npm)',
      source: `${FILE}#network.presets[0]`,
    });
    expect(p.decide({ host: 'files.pythonhosted.org', method: 'read' }).action).toBe('allow');
    expect(p.decide({ host: 'evil.npmjs.org.attacker.net', method: 'read' }).action).toBe('deny');
    expect(p.allowedHosts('read')).toContain('github.com');
  });

  it('allowedHosts lists the patterns allowing a method', () => {
    const p = compileNetworkPolicy(
      {
        default: 'deny',
        rules: [
          { host: 'a.com', action: 'allow', method: 'read' },
          { host: 'b.com', action: 'allow' },
          { host: 'c.com', action: 'deny' },
        ],
      },
      FILE,
    );
    expect(p.allowedHosts('read')).toEqual(['a.com', 'b.com']);
    expect(p.allowedHosts('write')).toEqual(['b.com']);
  });

  it('default allow with only allow rules is unrestricted; a deny rule restricts', () => {
    expect(compileNetworkPolicy({ default: 'allow' }, FILE).unrestricted).toBe(true);
    expect(compileNetworkPolicy({ default: 'allow', presets: ['npm'] }, FILE).unrestricted).toBe(true);
    expect(
      compileNetworkPolicy({ default: 'allow', rules: [{ host: 'x.com', action: 'deny' }] }, FILE)
        .unrestricted,
    ).toBe(false);
    expect(compileNetworkPolicy({ default: 'prompt' }, FILE).unrestricted).toBe(false);
  });

  it('the hash is stable across files and changes with the rules', () => {
    const a = compileNetworkPolicy({ rules: [{ host: 'x.com', action: 'allow' }] }, '/a.yaml');
    const b = compileNetworkPolicy({ rules: [{ host: 'x.com', action: 'allow' }] }, '/b.yaml');
    const c = compileNetworkPolicy({ rules: [{ host: 'y.com', action: 'allow' }] }, '/a.yaml');
    expect(a.hash).toBe(b.hash);
    expect(a.hash).not.toBe(c.hash);
  });
});

describe('network section: configuration errors name file, field and value', () => {
  it.each([
    [{ rules: [{ host: 'a.*.com', action: 'allow' }] }, 'network.rules[0].host'],
    [{ rules: [{ host: 'https://x.com/', action: 'allow' }] }, 'network.rules[0].host'],
    [{ rules: [{ host: 'x.com:443', action: 'allow' }] }, 'network.rules[0].host'],
    [{ rules: [{ host: '10.0.0.1/8', action: 'allow' }] }, 'network.rules[0].host'],
    [{ rules: [{ host: '10.0.0.0/33', action: 'allow' }] }, 'network.rules[0].host'],
    [{ rules: [{ host: '*.10.0.0.1', action: 'allow' }] }, 'network.rules[0].host'],
    [{ rules: [{ host: 'x.com', action: 'maybe' }] }, 'network.rules[0].action'],
    [{ rules: [{ host: 'x.com', action: 'allow', method: 'get' }] }, 'network.rules[0].method'],
    [{ rules: [{ host: 'x.com', action: 'allow', ports: [70000] }] }, 'network.rules[0].ports[0]'],
    [{ rules: [{ host: 'x.com', action: 'allow', schemes: ['ht tp'] }] }, 'network.rules[0].schemes[0]'],
    [{ rules: [{ host: 'x.com', action: 'allow', hots: 1 }] }, 'network.rules[0].hots'],
    [{ presets: ['npmm'] }, 'network.presets[0]'],
    [{ default: 'read' }, 'network.default'],
    [{ rulez: [] }, 'network.rulez'],
    ['deny', 'network'],
  ])('%j', (spec, field) => {
    const e = configErrorOf(spec);
    expect(e.field).toBe(field);
    expect(e.message).toContain(FILE);
  });

  it('good twins of the bad patterns compile', () => {
    const p = compileNetworkPolicy(
      {
        rules: [
          { host: '*.x.com', action: 'allow' },
          { host: '**.y.com', action: 'allow' },
          { host: '10.0.0.0/8', action: 'allow' },
          { host: '[::1]', action: 'allow' },
          { host: 'x.com', action: 'allow', ports: [443], schemes: ['HTTPS'], method: 'any' },
        ],
      },
      FILE,
    );
    expect(p.decide({ host: 'y.com', method: 'write' }).action).toBe('allow');
    expect(p.decide({ host: 'x.com', port: 443, scheme: 'https', method: 'write' }).action).toBe('allow');
  });
});
