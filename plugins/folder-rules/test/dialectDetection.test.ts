import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard, ToolgateError } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, type DialectName, folderRules, loadPolicy } from '../src/index.js';

// Issue 17, item 3. The bug: a native policy passed with the wrong --dialect (openfang, hermes) loaded as an
// empty policy and allowed reading ~/.ssh/id_rsa. Every dialect's sample, read as every other dialect, must
// be an error naming the mismatch — never a policy.
let dir: string;
const SAMPLES: Record<DialectName, { name: string; text: string }> = {
  toolgate: {
    name: 'policy.yaml',
    text: 'default: deny\nrules:\n  - { pattern: "<workspace>/**", access: write }\n  - { pattern: "~/.ssh/**", access: deny }\n',
  },
  folderguard: { name: 'fg.json', text: '{"readPaths": ["docs"], "writePaths": ["out"]}' },
  wunderland: {
    name: 'folders.json',
    text: '{"defaultPolicy": "deny", "rules": [{"pattern": "~/.ssh/**", "read": false, "write": false}, {"pattern": "<workspace>/**", "read": true, "write": true}]}',
  },
  wolo: {
    name: 'paths.yaml',
    text: 'path_safety:\n  allowed_write_paths: [/opt/shared]\n  audit_denied: true\n',
  },
  hermes: {
    name: 'agent.yaml',
    text: 'tools:\n  terminal:\n    allowed_paths: [<workspace>]\n  file:\n    allowed_read_paths: [<workspace>]\n    allowed_write_paths: [<workspace>]\n',
  },
  openfang: {
    name: 'config.toml',
    text: '[file_policy]\ndefault = "deny"\nwrite_paths = ["<workspace>/**"]\ndeny_paths = ["~/.ssh/**"]\n',
  },
};
const fileOf = (d: DialectName) => join(dir, SAMPLES[d].name);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tg-fr-detect-'));
  for (const d of DIALECTS) writeFileSync(fileOf(d), SAMPLES[d].text);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function loadError(run: () => unknown): ToolgateError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolgateError);
    return error as ToolgateError;
  }
  throw new Error('expected the load to fail, it returned a policy');
}

describe('dialect detection', () => {
  it('every sample read as every other dialect is an error naming the file, the dialect and what it looks like', () => {
    let pairs = 0;
    for (const actual of DIALECTS) {
      for (const wrong of DIALECTS) {
        if (wrong === actual) continue;
        const e = loadError(() => loadPolicy({ dialect: wrong, file: fileOf(actual) }));
        expect(e.code, `${actual} as ${wrong}`).toBe('TOOLGATE_ERR_INVALID_CONFIG');
        expect(e.message, `${actual} as ${wrong}`).toContain(fileOf(actual));
        expect(e.message, `${actual} as ${wrong}`).toContain(`--dialect ${wrong} recognises nothing`);
        expect(e.message, `${actual} as ${wrong}`).toContain(`a ${actual} policy`);
        pairs++;
      }
    }
    expect(pairs).toBe(30);
  });

  it('without a dialect, each sample is read as its own; and its own dialect loads it', () => {
    for (const d of DIALECTS) {
      expect(loadPolicy({ file: fileOf(d) }).dialect, d).toBe(d);
      expect(loadPolicy({ dialect: d, file: fileOf(d) }).dialect, d).toBe(d);
      expect(loadPolicy({ source: SAMPLES[d].text, file: SAMPLES[d].name }).dialect, d).toBe(d);
    }
    // folderRules reads the file the same way (the "config" path of --dialect).
    expect(folderRules({ file: fileOf('openfang') }).compiled.dialect).toBe('openfang');
  });

  it('the repro: a native policy as --dialect hermes or openfang never yields an allow of ~/.ssh/id_rsa', async () => {
    for (const wrong of ['hermes', 'openfang', 'wolo', 'wunderland', 'folderguard'] as const) {
      expect(() => folderRules({ dialect: wrong, file: fileOf('toolgate') }), wrong).toThrow(
        /recognises nothing/,
      );
    }
    const ctx: CallContext = { sessionId: 's', agentId: 'a', cwd: dir, workspace: dir, home: dir, env: {} };
    const guard = createGuard({ plugins: [folderRules({ file: fileOf('toolgate') })] });
    expect((await guard.check({ tool: 'read_file', args: { path: '~/.ssh/id_rsa' } }, ctx)).action).toBe(
      'deny',
    );
  });

  it('a file no dialect recognises, or one mixing dialects, is an error without --dialect', () => {
    expect(loadError(() => loadPolicy({ source: 'model: gpt\n', file: 'x.yaml' })).message).toMatch(
      /x\.yaml.*no dialect recognises this file.*model/,
    );
    expect(loadError(() => loadPolicy({ source: '{}', file: 'x.json' })).message).toMatch(
      /no dialect recognises/,
    );
    const mixed = loadError(() =>
      loadPolicy({ source: 'readPaths: [a]\nfile_policy: {}\n', file: 'm.yaml' }),
    );
    expect(mixed.message).toMatch(/mixes dialects: folderguard.*openfang/);
    // An explicit dialect with nothing of its own, and nothing of anyone else's: still an error.
    expect(loadError(() => loadPolicy({ dialect: 'wolo', source: '{}', file: 'w.yaml' })).message).toMatch(
      /--dialect wolo recognises nothing in this file \(it is empty\)/,
    );
    // OpenFang's own config.toml without [file_policy] keeps the legacy gate (seed 004), inferred by name.
    expect(loadPolicy({ source: '[exec_policy]\nmode = "allowlist"\n', file: 'config.toml' }).dialect).toBe(
      'openfang',
    );
  });
});

describe('load errors: line, column and did you mean', () => {
  it('unknown keys in every format', () => {
    const cases: [DialectName | undefined, string, string, RegExp][] = [
      [
        'toolgate',
        'p.yaml',
        'default: deny\nrules:\n  - pattern: /x\n    acess: write\n',
        /p\.yaml: field rules\[0\]\.acess: unknown field \(did you mean "access"\?\).*\(at line 4, column 5\)/,
      ],
      [
        undefined,
        'fg.json',
        '{\n  "readPaths": [],\n  "writePath": ["x"]\n}',
        /field writePath: unknown field \(did you mean "writePaths"\?\).*line 3, column 3/,
      ],
      [
        'openfang',
        'config.toml',
        '[file_policy]\ndefault = "deny"\n  deny_pathz = ["~/.ssh/**"]\n',
        /field file_policy\.deny_pathz: unknown field \(did you mean "deny_paths"\?\).*line 3, column 3/,
      ],
      [
        'hermes',
        'h.yaml',
        'tools:\n  terminal:\n    allowed_pathz: [/ws]\n',
        /field tools\.terminal\.allowed_pathz: unknown field \(did you mean "allowed_paths"\?\).*line 3, column 5/,
      ],
      [
        'wolo',
        'c.yaml',
        'path_safety:\n  wild_mod: true\n',
        /path_safety\.wild_mod: unknown field \(did you mean "wild_mode"\?\).*line 2, column 3/,
      ],
      [
        'wunderland',
        'w.json',
        '{"defaultPolicy": "deny",\n "rules": [{"pattern": "/x", "raed": true}]}',
        /rules\[0\]\.raed: unknown field \(did you mean "read"\?\).*line 2, column 30/,
      ],
    ];
    for (const [dialect, file, source, want] of cases) {
      const e = loadError(() => loadPolicy({ ...(dialect ? { dialect } : {}), file, source }));
      expect(e.message, file).toMatch(want);
    }
    // A key nothing is close to gets no suggestion.
    expect(
      loadError(() =>
        loadPolicy({ dialect: 'toolgate', file: 'p.yaml', source: 'default: deny\nzzzzzz: 1\n' }),
      ).message,
    ).toMatch(/field zzzzzz: unknown field, got 1 \(at line 2, column 1\)/);
  });

  it('syntax errors carry line and column in YAML, JSON and TOML', () => {
    const yaml = loadError(() =>
      loadPolicy({ dialect: 'toolgate', file: 'p.yaml', source: 'rules:\n  - [a, b\n' }),
    );
    expect(yaml.message).toMatch(/p\.yaml: not valid YAML: .*line \d+, column \d+/);
    expect(yaml.details.line).toBeTypeOf('number');
    const json = loadError(() =>
      loadPolicy({ dialect: 'folderguard', file: 'fg.json', source: '{\n  "readPaths": [1,]\n}' }),
    );
    expect(json.message).toMatch(/fg\.json: not valid JSON: .*line 2, column 1\d/);
    const toml = loadError(() =>
      loadPolicy({ dialect: 'openfang', file: 'c.toml', source: '[file_policy]\ndefault = \n' }),
    );
    expect(toml.message).toMatch(/c\.toml: not valid TOML: .*line 2, column \d+/);
    expect(toml.details).toMatchObject({ line: 2 });
  });
});

describe('explicit dialects and minimal files', () => {
  it('a key the named dialect reads is enough when no other dialect claims the file (rules: [] denies)', () => {
    const native = loadPolicy({ dialect: 'toolgate', source: 'rules: []\n', file: 'p.yaml' });
    expect(native.default).toEqual({ read: 'deny', write: 'deny' });
    expect(loadPolicy({ dialect: 'wunderland', source: '{"rules": []}', file: 'w.json' }).default).toEqual({
      read: 'deny',
      write: 'deny',
    });
    // …but not when the file is another dialect's (native rules read as Wunderland).
    expect(() =>
      loadPolicy({
        dialect: 'wunderland',
        source: '{"rules": [{"pattern": "/x", "access": "write"}]}',
        file: 'w.json',
      }),
    ).toThrow(/--dialect wunderland recognises nothing.*a toolgate policy/);
  });
});
