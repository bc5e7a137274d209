import { type CallContext, createGuard, ToolgateError } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { folderRules, loadPolicy, policySchema } from '../src/index.js';

const ctx: CallContext = {
  sessionId: 's',
  agentId: 'a',
  cwd: '/ws',
  workspace: '/ws',
  home: '/home/u',
  env: {},
};

function configError(fn: () => unknown): ToolgateError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolgateError);
    return error as ToolgateError;
  }
  throw new Error('expected a config error');
}

describe('bad config fails at load, naming file, field and value', () => {
  const cases: [string, Parameters<typeof loadPolicy>[0], RegExp][] = [
    [
      'native: bad access',
      { dialect: 'toolgate', source: 'rules:\n  - {pattern: /x, access: maybe}', file: 'p.yaml' },
      /p\.yaml: field rules\.0\.access.*"maybe"/,
    ],
    [
      'native: unknown key',
      { dialect: 'toolgate', source: '{"rulez": []}', file: 'p.json' },
      /p\.json: field .*rulez|Unrecognized key/,
    ],
    [
      'native: ! with allow',
      { dialect: 'toolgate', source: '{"rules": [{"pattern": "!/x/*", "access": "write"}]}', file: 'p.json' },
      /p\.json: field rules\[0\]\.access.*"write"/,
    ],
    [
      'native: bad yaml',
      { dialect: 'toolgate', source: 'rules: [', file: 'p.yaml' },
      /p\.yaml: not valid YAML/,
    ],
    [
      'folderguard: not a list',
      { dialect: 'folderguard', source: '{"readPaths": "/x"}', file: 'fg.json' },
      /fg\.json: field readPaths.*"\/x"/,
    ],
    [
      'folderguard: .. in a config path',
      { dialect: 'folderguard', source: '{"writePaths": ["/ws/../etc"]}', file: 'fg.json' },
      /fg\.json: field writePaths\[0\].*"\/ws\/\.\.\/etc"/,
    ],
    [
      'folderguard: unknown key',
      { dialect: 'folderguard', source: '{"readPath": []}', file: 'fg.json' },
      /fg\.json: field readPath: unknown field/,
    ],
    [
      'wunderland: bad default',
      { dialect: 'wunderland', source: '{"defaultPolicy": "maybe", "rules": []}', file: 'w.json' },
      /w\.json: field defaultPolicy.*"maybe"/,
    ],
    [
      'wunderland: bad flag',
      { dialect: 'wunderland', source: '{"rules": [{"pattern": "/x", "read": "yes"}]}', file: 'w.json' },
      /w\.json: field rules\[0\]\.read.*"yes"/,
    ],
    [
      'wunderland: bad tier',
      { dialect: 'wunderland', source: '{"security": {"tier": "lax"}}', file: 'agent.config.json' },
      /agent\.config\.json: field security\.tier.*"lax"/,
    ],
    [
      'wolo: bad max',
      { dialect: 'wolo', source: 'path_safety:\n  max_confirmations_per_session: -1', file: 'c.yaml' },
      /c\.yaml: field path_safety\.max_confirmations_per_session.*-1/,
    ],
    [
      'wolo: unknown key',
      { dialect: 'wolo', source: 'path_safety:\n  allowed_paths: []', file: 'c.yaml' },
      /c\.yaml: field path_safety\.allowed_paths: unknown field/,
    ],
    [
      'hermes: unset variable',
      {
        dialect: 'hermes',
        source: 'tools:\n  terminal:\n    allowed_paths:\n      - ${NOPE_UNSET}/x',
        file: 'h.yaml',
        env: {},
      },
      /h\.yaml: field tools\.terminal\.allowed_paths\[0\].*variable NOPE_UNSET is not set/,
    ],
    [
      'hermes: bad metachar flag',
      { dialect: 'hermes', source: 'tools:\n  terminal:\n    allow_metacharacters: maybe', file: 'h.yaml' },
      /h\.yaml: field tools\.terminal\.allow_metacharacters.*"maybe"/,
    ],
    [
      'openfang: bad default',
      { dialect: 'openfang', source: '[file_policy]\ndefault = "open"', file: 'c.toml' },
      /c\.toml: field file_policy\.default.*"open"/,
    ],
    [
      'openfang: bad toml',
      { dialect: 'openfang', source: '[file_policy\n', file: 'c.toml' },
      /c\.toml: not valid TOML/,
    ],
    [
      'openfang: unknown key',
      { dialect: 'openfang', source: '[file_policy]\nallow_paths = []', file: 'c.toml' },
      /c\.toml: field file_policy\.allow_paths: unknown field/,
    ],
  ];
  for (const [name, options, message] of cases) {
    it(name, () => {
      const e = configError(() => loadPolicy(options));
      expect(e.code).toBe('TOOLGATE_ERR_INVALID_CONFIG');
      expect(e.message).toMatch(message);
    });
  }

  it('a missing file is an IO error naming the file', () => {
    const e = configError(() => loadPolicy({ dialect: 'openfang', file: '/nonexistent/config.toml' }));
    expect(e.code).toBe('TOOLGATE_ERR_IO');
    expect(e.message).toMatch(/\/nonexistent\/config\.toml/);
  });

  it('bad plugin options throw TOOLGATE_ERR_INVALID_OPTIONS naming the option', () => {
    expect(() => folderRules({} as never)).toThrow(/option policy/);
    expect(() => folderRules({ rules: [{ pattern: '/x', access: 'allow' as never }] })).toThrow(
      /rules\[0\]\.access.*"allow"/,
    );
    expect(() => folderRules({ rules: [], unknownTools: 'maybe' as never })).toThrow(/unknownTools.*"maybe"/);
    expect(() => folderRules({ rules: [], tools: { t: { op: 'exec' as never } } })).toThrow(
      /tools\.t\.op.*"exec"/,
    );
    expect(() => folderRules({ rules: [], bogus: 1 } as never)).toThrow(/option bogus/);
    expect(() => loadPolicy({ dialect: 'nope' as never, source: '' })).toThrow(/dialect must be one of/);
  });

  it('declares itself a path policy to core, and exposes the compiled policy', () => {
    const plugin = folderRules({ rules: [{ pattern: '/x/**', access: 'read' }] });
    expect(plugin.policy).toBe(true);
    expect(plugin.compiled.rules[0]?.pattern).toBe('/x/**');
  });
});

describe('hash', () => {
  it('is stable across spelling of the same policy, and differs when a rule differs', () => {
    const a = loadPolicy({
      dialect: 'toolgate',
      source: 'default: deny\nrules:\n  - {pattern: /x/**, access: read}',
      file: 'a.yaml',
    });
    const b = loadPolicy({
      dialect: 'toolgate',
      source: '{"rules": [{"access": "read", "pattern": "/x/**"}], "default": "deny"}',
      file: 'b.json',
    });
    const c = loadPolicy({
      dialect: 'toolgate',
      source: '{"rules": [{"access": "write", "pattern": "/x/**"}], "default": "deny"}',
      file: 'c.json',
    });
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(a.hash).toBe(b.hash);
    expect(a.hash).not.toBe(c.hash);
  });
});

describe('hermes shell settings for the shell plugin', () => {
  it('carries allow_metacharacters and the terminal lists, ${VAR} expanded', () => {
    const p = loadPolicy({
      dialect: 'hermes',
      source:
        'tools:\n  terminal:\n    allow_metacharacters: true\n    allowed_paths:\n      - ${HH}/x\n      - ~/y\n    denied_paths: [~/.ssh]',
      file: 'h.yaml',
      env: { HH: '/opt/hh' },
    });
    expect(p.shell).toEqual({
      metacharacters: 'analyse',
      notShell: ['code_execution'],
      allowedPaths: ['/opt/hh/x', '~/y'],
      deniedPaths: ['~/.ssh'],
    });
    // Seed 003: "If allowed_paths / denied_paths is not set → current behavior (no restriction). Zero impact".
    const none = loadPolicy({ dialect: 'hermes', source: 'tools: {}', file: 'h.yaml' });
    expect(none.shell?.metacharacters).toBe('analyse');
    // "On shell metacharacters that shlex cannot audit … fail-closed by default" once the terminal is scoped.
    const strict = loadPolicy({
      dialect: 'hermes',
      source: 'tools: {terminal: {denied_paths: [~/.ssh]}}',
      file: 'h.yaml',
    });
    expect(strict.shell?.metacharacters).toBe('deny');
  });
});

describe('dialect extras other plugins read', () => {
  it('wolo: confirmations cap, audit settings, wild mode (also from WOLO_WILD_MODE) audits everything', () => {
    const p = loadPolicy({
      dialect: 'wolo',
      source:
        'path_safety:\n  max_confirmations_per_session: 3\n  audit_denied: true\n  audit_log_file: ~/a.log',
      file: 'c.yaml',
      env: {},
    });
    expect(p.extras).toMatchObject({
      maxConfirmationsPerSession: 3,
      auditDenied: true,
      auditLogFile: '~/a.log',
      wild: false,
    });
    const wild = loadPolicy({
      dialect: 'wolo',
      source: 'path_safety: {}',
      file: 'c.yaml',
      env: { WOLO_WILD_MODE: 'true' },
    });
    expect(wild.extras).toMatchObject({ wild: true, audit: 'all' });
    expect(wild.disabled).toBe(true);
  });

  it('wunderland: the five tier presets exactly as the seed lists them', () => {
    for (const tier of ['dangerous', 'permissive', 'balanced', 'strict', 'paranoid']) {
      const p = loadPolicy({ dialect: 'wunderland', source: JSON.stringify({ tier }), file: 't.json' });
      expect(p.mode).toBe('first-match');
      expect(p.extras.tier).toBe(tier);
    }
    const balanced = loadPolicy({ dialect: 'wunderland', source: '{"tier": "balanced"}', file: 't.json' });
    expect(balanced.rules.map((r) => [r.pattern, r.access])).toEqual([
      ['~/workspace/**', 'write'],
      ['/tmp/**', 'write'],
      ['/var/log/**', 'read'],
    ]);
  });
});

describe('narrowOnly overlays', () => {
  const base =
    '[file_policy]\ndefault = "deny"\nwrite_paths = ["<workspace>/**"]\ndeny_paths = ["**/.ssh/**"]\n';
  it('refuses an overlay that widens, naming the overlay file, field and path', () => {
    const e = configError(() =>
      loadPolicy({
        dialect: 'openfang',
        source: `${base}[agents.x.file_policy]\nnarrow_only = true\nread_paths = ["/etc/**"]\n`,
        file: 'c.toml',
        agent: 'x',
      }),
    );
    expect(e.message).toMatch(/c\.toml: field agents\.x\.file_policy\.read_paths\[0\].*widens read of \/etc/);
  });
  it('refuses one that drops a deny', () => {
    const e = configError(() =>
      loadPolicy({
        dialect: 'openfang',
        source: `${base}[agents.x.file_policy]\nnarrow_only = true\ndeny_paths = ["/tmp/none/**"]\n`,
        file: 'c.toml',
        agent: 'x',
      }),
    );
    expect(e.message).toMatch(/widens/);
  });
  it('refuses a wider default', () => {
    const e = configError(() =>
      loadPolicy({
        dialect: 'toolgate',
        source: '{"default": "deny", "agents": {"x": {"narrowOnly": true, "default": "read"}}}',
        file: 'p.json',
        agent: 'x',
      }),
    );
    expect(e.message).toMatch(/p\.json: field default.*widens read/);
  });
  it('`uncertain: prompt` loads into the compiled policy; a narrowOnly overlay cannot turn deny into prompt', () => {
    const p = loadPolicy({
      dialect: 'toolgate',
      source: '{"default": "deny", "uncertain": "prompt"}',
      file: 'u.json',
    });
    expect(p.extras.uncertain).toBe('prompt');
    const bad = configError(() =>
      loadPolicy({ dialect: 'toolgate', source: '{"uncertain": "allow"}', file: 'u.json' }),
    );
    expect(bad.message).toMatch(/u\.json.*uncertain/);
    const e = configError(() =>
      loadPolicy({
        dialect: 'toolgate',
        source: '{"default": "deny", "agents": {"x": {"narrowOnly": true, "uncertain": "prompt"}}}',
        file: 'p.json',
        agent: 'x',
      }),
    );
    expect(e.message).toMatch(/p\.json: field uncertain.*cannot widen uncertain: deny/);
  });
  it('accepts one that narrows, and the same overlay without narrowOnly may widen', async () => {
    const narrow = loadPolicy({
      dialect: 'openfang',
      source: `${base}[agents.x.file_policy]\nnarrow_only = true\nwrite_paths = ["<workspace>/out/**"]\n`,
      file: 'c.toml',
      agent: 'x',
    });
    const guard = createGuard({ plugins: [folderRules({ policy: narrow })] });
    expect((await guard.check({ tool: 'file_write', args: { path: '/ws/src/a' } }, ctx)).action).toBe('deny');
    const wide = loadPolicy({
      dialect: 'openfang',
      source: `${base}[agents.x.file_policy]\nread_paths = ["/etc/**"]\n`,
      file: 'c.toml',
      agent: 'x',
    });
    expect(wide.sources).toEqual(['c.toml', 'c.toml#agents.x']);
    expect(() =>
      loadPolicy({
        dialect: 'openfang',
        source: `${base}[agents.x.file_policy]\nread_paths = ["/etc/**"]\n`,
        file: 'c.toml',
        agent: 'x',
        narrowOnly: true,
      }),
    ).toThrow(/widens/);
  });
});

describe('JSON Schema of the native dialect', () => {
  it('is generated from the zod schema', () => {
    const schema = policySchema() as { properties?: Record<string, unknown> };
    expect(Object.keys(schema.properties ?? {})).toEqual(
      expect.arrayContaining(['rules', 'default', 'mode', 'tests', 'agents']),
    );
  });
});
