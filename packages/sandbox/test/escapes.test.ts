import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CallContext, createGuard } from '@toolgate/core';
import { folderRules, loadPolicy } from '@toolgate/folder-rules';
import { shell } from '@toolgate/shell';
import { afterAll, describe, expect, it } from 'vitest';
import { bwrapArgs, compileMounts } from '../src/index.js';

// The escape suite (issue 23): each attack a command inside the sandbox tries, by real bubblewrap on real files,
// links and directories in a fresh temporary tree per case, through both ways toolgate starts a sandbox — the
// `toolgate run` command (the built CLI) and the Claude Code hook's rewritten command line, run by a real
// shell as Claude Code runs it. Each attack has a twin: the everyday form of the same thing, which must work.
// The policy is a permissive one (workspace and home writable), where these attacks matter most.

const BIN = fileURLToPath(new URL('../../cli/bin/toolgate.cjs', import.meta.url));

const CANARY = {
  ssh: 'CANARY-SSH',
  sshUpper: 'CANARY-SSH-UPPER',
  sshMixed: 'CANARY-SSH-MIXED',
  env: 'CANARY-ENV',
  envUpper: 'CANARY-ENV-UPPER',
  spool: 'CANARY-SPOOL-ENV',
};
const ORIGINAL = {
  settings: '{"original":"project"}\n',
  userSettings: '{"original":"user"}\n',
  gemini: '{"original":"gemini"}\n',
  compiled: '{"original":"compiled policy"}\n',
  command: '# x\n',
};
const POLICY = [
  'sandbox: uncertain',
  'default: read',
  'rules:',
  '  - { pattern: "<workspace>/**", access: write }',
  '  - { pattern: "~/**", access: write }',
  '  - { pattern: "~/.ssh/**", access: deny }',
  '  - { pattern: "**/.env", access: deny }',
  '  - { pattern: "<workspace>/conf/*.key", access: read }',
  '',
].join('\n');

interface Fixture {
  root: string;
  ws: string;
  home: string;
  policy: string;
}

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function file(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** A fresh workspace and home: keys in every spelling, hook settings, toolgate's cache with a spool. */
function fixture(o: { projectClaude?: boolean } = {}): Fixture {
  const root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-escape-')));
  roots.push(root);
  const ws = join(root, 'ws');
  const home = join(root, 'home');
  const policy = join(ws, 'toolgate.yaml');
  file(policy, POLICY);
  file(join(ws, 'README.md'), 'read me\n');
  file(join(ws, 'src', 'a.txt'), 'a\n');
  file(join(ws, 'sub', '.env'), CANARY.env);
  file(join(ws, 'sub', 'code.txt'), 'code\n');
  file(join(ws, 'other', '.ENV'), CANARY.envUpper);
  file(join(ws, 'conf', 'a.key'), 'KEY-ORIGINAL');
  if (o.projectClaude !== false) {
    file(join(ws, '.claude', 'settings.json'), ORIGINAL.settings);
    file(join(ws, '.claude', 'commands', 'x.md'), ORIGINAL.command);
  }
  file(join(ws, '.gemini', 'settings.json'), ORIGINAL.gemini);
  file(join(ws, '.toolgate', 'README'), 'project policy directory\n');
  file(join(home, '.ssh', 'id_rsa'), CANARY.ssh);
  file(join(home, '.SSH', 'id_rsa'), CANARY.sshUpper);
  file(join(home, '.Ssh', 'id_rsa'), CANARY.sshMixed);
  file(join(home, '.sshx', 'config'), 'not a key\n');
  file(join(home, '.claude', 'settings.json'), ORIGINAL.userSettings);
  file(join(home, '.gemini', 'settings.json'), ORIGINAL.gemini);
  file(join(home, '.cache', 'toolgate', 'policies', 'p.json'), ORIGINAL.compiled);
  file(join(home, '.cache', 'toolgate', 'hookd-0badc0de', 'req-1'), `API_KEY=${CANARY.spool}`);
  file(join(home, '.cache', 'other', 'x'), 'other cache\n');
  symlinkSync(join(home, '.ssh', 'id_rsa'), join(ws, 'key-link'));
  return { root, ws, home, policy };
}

interface Ran {
  code: number | null;
  out: string;
  err: string;
}

const baseEnv = (fx: Fixture): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: fx.home,
  // No warm server outlives the test; the run plans in its own process (the same function the server runs).
  TOOLGATE_HOOK_SERVER: 'off',
});

/** `toolgate run --policy toolgate.yaml -- /bin/sh -c SCRIPT`, in the workspace. */
function viaRun(fx: Fixture, script: string): Ran {
  const r = spawnSync(process.execPath, [BIN, 'run', '--policy', fx.policy, '--', '/bin/sh', '-c', script], {
    cwd: fx.ws,
    encoding: 'utf8',
    env: baseEnv(fx),
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/**
 * The Claude Code hook: a Bash call analysis cannot prove (`sh -c "$ATTACK"`, the variable unset when judged)
 * is rewritten into a bubblewrap command line, which a real shell then runs with ATTACK set.
 */
function viaHook(fx: Fixture, script: string): Ran {
  const event = {
    session_id: 'escape',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'sh -c "$ATTACK"' },
    cwd: fx.ws,
  };
  const h = spawnSync(process.execPath, [BIN, 'hook', 'claude-code', '--policy', fx.policy], {
    cwd: fx.ws,
    input: JSON.stringify(event),
    encoding: 'utf8',
    env: { ...baseEnv(fx), CLAUDE_PROJECT_DIR: fx.ws },
  });
  const out = JSON.parse(h.stdout || '{}').hookSpecificOutput;
  if (out?.permissionDecision !== 'allow' || typeof out.updatedInput?.command !== 'string')
    throw new Error(`the hook did not rewrite the call: ${h.stdout} ${h.stderr}`);
  const r = spawnSync('/bin/bash', ['-c', out.updatedInput.command], {
    cwd: fx.ws,
    encoding: 'utf8',
    env: { ...baseEnv(fx), ATTACK: script },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);
const noCanary = (r: Ran) => {
  for (const c of Object.values(CANARY)) expect(r.out).not.toContain(c);
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Case {
  name: string;
  /** `attack`: must fail; `twin`: the everyday form, must work. */
  kind: 'attack' | 'twin';
  script: string | ((fx: Fixture) => string);
  setup?: { projectClaude?: boolean };
  check: (fx: Fixture, r: Ran) => void | Promise<void>;
}

const CASES: Record<string, Case[]> = {
  'renaming the parent of a protected path': [
    {
      name: 'mv .claude away, plant .claude/settings.json',
      kind: 'attack',
      script: 'mv .claude .claude.old; mkdir -p .claude; echo \'{"hooks":1}\' > .claude/settings.json',
      check: (fx) => {
        expect(read(join(fx.ws, '.claude', 'settings.json'))).toBe(ORIGINAL.settings);
        expect(existsSync(join(fx.ws, '.claude.old'))).toBe(false);
      },
    },
    {
      name: 'mv ~/.claude away, plant ~/.claude/settings.json',
      kind: 'attack',
      script:
        'mv ~/.claude ~/.claude.old; mkdir -p ~/.claude; echo \'{"hooks":1}\' > ~/.claude/settings.json',
      check: (fx) => {
        expect(read(join(fx.home, '.claude', 'settings.json'))).toBe(ORIGINAL.userSettings);
        expect(existsSync(join(fx.home, '.claude.old'))).toBe(false);
      },
    },
    {
      name: 'mv ~/.cache away, plant a compiled policy in ~/.cache/toolgate',
      kind: 'attack',
      script:
        'mv ~/.cache ~/.cache.old; mv ~/.cache/toolgate ~/.cache/tg.old; mkdir -p ~/.cache/toolgate/policies; echo PLANTED > ~/.cache/toolgate/policies/p.json',
      check: (fx) => {
        expect(read(join(fx.home, '.cache', 'toolgate', 'policies', 'p.json'))).toBe(ORIGINAL.compiled);
        expect(existsSync(join(fx.home, '.cache.old'))).toBe(false);
        expect(existsSync(join(fx.home, '.cache', 'tg.old'))).toBe(false);
      },
    },
    {
      name: 'mv sub sub_old, plant sub/.env',
      kind: 'attack',
      script: 'mv sub sub_old; mkdir -p sub; echo PLANTED > sub/.env',
      check: (fx) => {
        expect(read(join(fx.ws, 'sub', '.env'))).toBe(CANARY.env);
        expect(existsSync(join(fx.ws, 'sub_old'))).toBe(false);
      },
    },
    {
      name: 'mv sub sub2, read the denied .env where it moved',
      kind: 'attack',
      script: 'mv sub sub2; cat sub2/.env sub/.env; mv sub/.env sub/env.txt; cat sub/env.txt',
      check: (fx, r) => {
        noCanary(r);
        expect(existsSync(join(fx.ws, 'sub2'))).toBe(false);
        expect(read(join(fx.ws, 'sub', '.env'))).toBe(CANARY.env);
      },
    },
    {
      name: 'mv ~/.ssh away (the masked directory itself), read it under the new name',
      kind: 'attack',
      script: 'mv ~/.ssh ~/.ssh.old; cat ~/.ssh.old/id_rsa; rm -rf ~/.ssh',
      check: (fx, r) => {
        noCanary(r);
        expect(read(join(fx.home, '.ssh', 'id_rsa'))).toBe(CANARY.ssh);
      },
    },
    {
      name: 'mv conf away, plant conf/a.key (read-only under a write-deny glob)',
      kind: 'attack',
      script: 'echo PLANTED > conf/a.key; mv conf conf_old; mkdir -p conf; echo PLANTED > conf/a.key',
      check: (fx) => {
        expect(read(join(fx.ws, 'conf', 'a.key'))).toBe('KEY-ORIGINAL');
        expect(existsSync(join(fx.ws, 'conf_old'))).toBe(false);
      },
    },
    {
      name: 'twin: ordinary directories rename (with their files), new ones too',
      kind: 'twin',
      script:
        'mv src src2 && mkdir lib && mv lib lib2 && mv sub/code.txt sub/code2.txt && echo n > conf/notes.txt && echo RENAMED',
      check: (fx, r) => {
        expect(r.out).toContain('RENAMED');
        expect(read(join(fx.ws, 'src2', 'a.txt'))).toBe('a\n');
        expect(existsSync(join(fx.ws, 'lib2'))).toBe(true);
        expect(existsSync(join(fx.ws, 'sub', 'code2.txt'))).toBe(true);
      },
    },
  ],
  'new files under write-deny globs': [
    {
      name: 'create .claude/settings.local.json',
      kind: 'attack',
      script: 'echo \'{"hooks":1}\' > .claude/settings.local.json; echo x > .claude/new.json',
      check: (fx) => {
        expect(existsSync(join(fx.ws, '.claude', 'settings.local.json'))).toBe(false);
        expect(existsSync(join(fx.ws, '.claude', 'new.json'))).toBe(false);
      },
    },
    {
      name: 'create ~/.claude/settings.local.json',
      kind: 'attack',
      script: 'echo \'{"hooks":1}\' > ~/.claude/settings.local.json',
      check: (fx) => expect(existsSync(join(fx.home, '.claude', 'settings.local.json'))).toBe(false),
    },
    {
      name: 'create .toolgate/policy.yaml',
      kind: 'attack',
      script: 'echo "default: write" > .toolgate/policy.yaml',
      check: (fx) => expect(existsSync(join(fx.ws, '.toolgate', 'policy.yaml'))).toBe(false),
    },
    {
      name: 'create a project .claude where none exists (the user has ~/.claude)',
      kind: 'attack',
      setup: { projectClaude: false },
      script: 'mkdir -p .claude; echo \'{"hooks":1}\' > .claude/settings.json; rmdir .claude',
      check: (fx) => {
        expect(existsSync(join(fx.ws, '.claude', 'settings.json'))).toBe(false);
        // What it costs: the directory bubblewrap made as a mount point, left empty.
        expect(readdirSync(join(fx.ws, '.claude'))).toEqual([]);
      },
    },
    {
      name: 'twin: edit .claude/commands/x.md and add a command, the policy allowing it',
      kind: 'twin',
      script:
        'echo EDITED >> .claude/commands/x.md && echo y > .claude/commands/y.md && cat .claude/settings.json',
      check: (fx, r) => {
        expect(read(join(fx.ws, '.claude', 'commands', 'x.md'))).toBe(`${ORIGINAL.command}EDITED\n`);
        expect(read(join(fx.ws, '.claude', 'commands', 'y.md'))).toBe('y\n');
        expect(r.out).toBe(ORIGINAL.settings); // readable, not writable
      },
    },
  ],
  'guard files (built in, whatever the rules say)': [
    {
      name: 'rewrite the policy in use (sed -i, >, rm)',
      kind: 'attack',
      script: 'sed -i s/deny/read/ toolgate.yaml; echo "default: write" > toolgate.yaml; rm -f toolgate.yaml',
      check: (fx) => expect(read(fx.policy)).toBe(POLICY),
    },
    {
      name: 'rewrite the Gemini CLI settings, project and user',
      kind: 'attack',
      script: 'echo \'{"hooks":1}\' > .gemini/settings.json; echo \'{"hooks":1}\' > ~/.gemini/settings.json',
      check: (fx) => {
        expect(read(join(fx.ws, '.gemini', 'settings.json'))).toBe(ORIGINAL.gemini);
        expect(read(join(fx.home, '.gemini', 'settings.json'))).toBe(ORIGINAL.gemini);
      },
    },
    {
      name: 'hard-link a guard file into the writable workspace and write through the link',
      kind: 'attack',
      script:
        'ln toolgate.yaml hl1; echo "default: write" >> hl1; ln .claude/settings.json hl2; echo x >> hl2',
      check: (fx) => {
        expect(read(fx.policy)).toBe(POLICY);
        expect(read(join(fx.ws, '.claude', 'settings.json'))).toBe(ORIGINAL.settings);
      },
    },
    {
      name: "rewrite a compiled policy in toolgate's cache",
      kind: 'attack',
      script: 'echo PLANTED > ~/.cache/toolgate/policies/p.json; echo x > ~/.cache/toolgate/new',
      check: (fx) => {
        expect(read(join(fx.home, '.cache', 'toolgate', 'policies', 'p.json'))).toBe(ORIGINAL.compiled);
        expect(existsSync(join(fx.home, '.cache', 'toolgate', 'new'))).toBe(false);
      },
    },
    {
      name: "read the hook server's spool (another call's environment)",
      kind: 'attack',
      script: 'ls -a ~/.cache/toolgate; cat ~/.cache/toolgate/hookd-*/*',
      check: (_, r) => {
        noCanary(r);
        expect(r.out).not.toContain('hookd-');
        expect(r.out).toContain('policies'); // the rest of the cache stays readable
      },
    },
    {
      name: 'twin: read README.md, the settings and the cache; write source files and other caches',
      kind: 'twin',
      script:
        'cat README.md ~/.claude/settings.json ~/.cache/toolgate/policies/p.json && echo new > src/new.txt && echo y > ~/.cache/other/y',
      check: (fx, r) => {
        expect(r.out).toBe(`read me\n${ORIGINAL.userSettings}${ORIGINAL.compiled}`);
        expect(read(join(fx.ws, 'src', 'new.txt'))).toBe('new\n');
        expect(read(join(fx.home, '.cache', 'other', 'y'))).toBe('y\n');
      },
    },
  ],
  'case variants of a case-insensitive deny': [
    {
      name: 'read ~/.SSH/id_rsa, ~/.Ssh/id_rsa, other/.ENV',
      kind: 'attack',
      script: 'cat ~/.SSH/id_rsa ~/.Ssh/id_rsa ~/.ssh/id_rsa other/.ENV',
      check: (_, r) => noCanary(r),
    },
    {
      name: 'twin: a name that only looks alike (~/.sshx/config) stays readable',
      kind: 'twin',
      script: 'cat ~/.sshx/config',
      check: (_, r) => expect(r.out).toBe('not a key\n'),
    },
  ],
  'what already held': [
    {
      name: '/proc/self/root and /proc/1/root',
      kind: 'attack',
      script:
        'cat /proc/self/root$HOME/.ssh/id_rsa /proc/1/root$HOME/.ssh/id_rsa /proc/self/root$HOME/.SSH/id_rsa',
      check: (_, r) => noCanary(r),
    },
    {
      name: '/dev/fd and a directory fd',
      kind: 'attack',
      script: 'exec 3< ~/.ssh/id_rsa; cat /dev/fd/3; exec 4< ~/.ssh; cat /dev/fd/4/id_rsa',
      check: (_, r) => noCanary(r),
    },
    {
      name: 'a hard link to the key',
      kind: 'attack',
      script: 'ln ~/.ssh/id_rsa hl; ln ~/.SSH/id_rsa hl2; cat hl hl2',
      check: (fx, r) => {
        noCanary(r);
        expect(existsSync(join(fx.ws, 'hl'))).toBe(false);
      },
    },
    {
      name: 'symlinks to the key, made inside and before',
      kind: 'attack',
      script: 'ln -s ~/.ssh/id_rsa l1; ln -s ~/.SSH l2; cat l1 l2/id_rsa key-link',
      check: (_, r) => noCanary(r),
    },
    {
      name: 'a double-forked daemon outliving the run',
      kind: 'attack',
      script: '(setsid sh -c "sleep 0.4; echo ALIVE > $PWD/daemon.txt" > /dev/null 2>&1 &) ; echo STARTED',
      check: async (fx, r) => {
        expect(r.out).toContain('STARTED');
        await sleep(800);
        expect(existsSync(join(fx.ws, 'daemon.txt'))).toBe(false);
      },
    },
    {
      name: 'twin: links and background jobs within the run work',
      kind: 'twin',
      script: 'ln -s README.md r && ln src/a.txt hard.txt && cat r hard.txt && (sleep 0.1; echo BG) & wait',
      check: (_, r) => expect(r.out).toBe('read me\na\nBG\n'),
    },
  ],
};

const RUNNERS: Array<[string, (fx: Fixture, script: string) => Ran]> = [
  ['toolgate run', viaRun],
  ["the hook's rewritten command", viaHook],
];

describe.each(RUNNERS)('escapes through %s', (_, run) => {
  for (const [group, cases] of Object.entries(CASES))
    describe(group, () => {
      it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
        const fx = fixture(c.setup);
        const script = typeof c.script === 'function' ? c.script(fx) : c.script;
        const r = run(fx, script);
        if (c.kind === 'twin') expect(r.code, r.err).toBe(0);
        await c.check(fx, r);
      });
    });
});

describe('both layers agree on every case variant of a case-insensitive deny', () => {
  it('static check denies exactly what the sandbox hides', async () => {
    const fx = fixture();
    const policy = loadPolicy({ dialect: 'toolgate', file: fx.policy });
    const ctx: CallContext = {
      sessionId: 's',
      agentId: 'a',
      cwd: fx.ws,
      workspace: fx.ws,
      home: fx.home,
      env: { HOME: fx.home },
    };
    const guard = createGuard({ plugins: [shell(), folderRules({ policy })] });
    const argv = ['bwrap', ...bwrapArgs(compileMounts(policy, ctx))];
    const paths = [
      join(fx.home, '.ssh', 'id_rsa'),
      join(fx.home, '.SSH', 'id_rsa'),
      join(fx.home, '.Ssh', 'id_rsa'),
      join(fx.ws, 'sub', '.env'),
      join(fx.ws, 'other', '.ENV'),
      join(fx.home, '.sshx', 'config'),
      join(fx.ws, 'README.md'),
    ];
    const verdicts = [];
    for (const path of paths) {
      const d = await guard.check({ tool: 'Bash', args: { command: `cat '${path}'` } }, ctx);
      const r = spawnSync(argv[0]!, [...argv.slice(1), 'cat', path], { encoding: 'utf8' });
      verdicts.push({ path, static: d.action, sandbox: r.status === 0 ? 'allow' : 'deny' });
    }
    for (const v of verdicts) expect(v.sandbox, v.path).toBe(v.static);
    expect(verdicts.filter((v) => v.static === 'deny')).toHaveLength(5);
  });

  it('and on every guard file: the static check refuses the write, the sandbox cannot make it', async () => {
    const fx = fixture();
    const policy = loadPolicy({ dialect: 'toolgate', file: fx.policy });
    const ctx: CallContext = {
      sessionId: 's',
      agentId: 'a',
      cwd: fx.ws,
      workspace: fx.ws,
      home: fx.home,
      env: { HOME: fx.home },
    };
    const guard = createGuard({ plugins: [shell(), folderRules({ policy })] });
    const argv = ['bwrap', ...bwrapArgs(compileMounts(policy, ctx))];
    const guarded = [
      fx.policy,
      join(fx.ws, '.claude', 'settings.json'),
      join(fx.ws, '.claude', 'settings.local.json'),
      join(fx.home, '.claude', 'settings.json'),
      join(fx.home, '.claude', 'settings.local.json'),
      join(fx.ws, '.gemini', 'settings.json'),
      join(fx.home, '.gemini', 'settings.json'),
      join(fx.home, '.cache', 'toolgate', 'policies', 'p.json'),
      join(fx.ws, '.toolgate', 'policy.yaml'),
    ];
    for (const path of guarded) {
      const d = await guard.check({ tool: 'Bash', args: { command: `echo x >> '${path}'` } }, ctx);
      expect(d.reasons[0]?.code, path).toBe('GUARD_FILE');
      const r = spawnSync(argv[0]!, [...argv.slice(1), '/bin/sh', '-c', 'echo x >> "$1"', 'sh', path], {
        encoding: 'utf8',
      });
      expect(r.status, path).not.toBe(0);
    }
    const allowed = join(fx.ws, '.claude', 'commands', 'x.md');
    expect(
      (await guard.check({ tool: 'Bash', args: { command: `echo x >> '${allowed}'` } }, ctx)).action,
    ).toBe('allow');
    const r = spawnSync(argv[0]!, [...argv.slice(1), '/bin/sh', '-c', 'echo x >> "$1"', 'sh', allowed]);
    expect(r.status).toBe(0);
  });
});
