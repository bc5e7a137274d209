import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockMessagesApi, startMockMessagesApi, type ToolResult, type Turn } from './mockMessagesApi.js';

// Issue 22, "Done when": the real Claude Code CLI (npm @anthropic-ai/claude-code, pinned in test/package.json;
// its postinstall copies the native binary of the platform package over bin/claude.exe), driven offline by a
// loopback mock of the Messages API that plays scripted tool calls, in bypassPermissions mode, with the toolgate
// PreToolUse hook that `toolgate install claude-code` writes. The two-step leak — Write x.py (which prints the
// SSH key), then Bash `python3 x.py` — must return no secret to the model, with `sandbox: uncertain` and with
// the sandbox off. Twins: `cat ~/.ssh/id_rsa` is denied outright (the hook works at all), and everyday code
// (Write hello.py, run it) still reaches the model with the sandbox on. The mock records every request body
// the CLI sends; the key's marker must be in none of them.

const require = createRequire(import.meta.url);
const CLAUDE_VERSION = '2.1.332';
const toolgateBin = fileURLToPath(new URL('../../packages/cli/bin/toolgate.cjs', import.meta.url));
const work = realpathSync(mkdtempSync(join(tmpdir(), 'tg-e2e-cc-')));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The CLI the package installed: bin/claude.exe, the native binary once the postinstall ran. */
function claudeBin(): string {
  const pkg = require.resolve('@anthropic-ai/claude-code/package.json');
  return join(dirname(pkg), 'bin', 'claude.exe');
}

beforeAll(() => {
  // Never a skip: a missing or unbuilt CLI fails every case here, with the reason.
  const bin = claudeBin();
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 20_000 });
  if (r.status !== 0 || !r.stdout.includes(CLAUDE_VERSION))
    throw new Error(
      `Claude Code ${CLAUDE_VERSION} does not run from ${bin} (status ${r.status}, ${r.error?.message ?? ''}` +
        ` ${r.stdout}${r.stderr}): run \`pnpm install\` (its postinstall must run: pnpm-workspace.yaml onlyBuiltDependencies)`,
    );
}, 30_000);

type Sandbox = 'uncertain' | 'off';

interface Run {
  project: string;
  marker: string;
  api: MockMessagesApi;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** The CLI's --output-format json result. */
  result: { is_error?: boolean; subtype?: string; permission_denials?: unknown[] } | undefined;
}

/**
 * A fresh project with its own HOME (holding a fake ~/.ssh/id_rsa with a unique marker), `toolgate init` and
 * `toolgate install claude-code` as a user runs them (the built CLI through a `toolgate` on PATH), the policy's
 * `sandbox:` set, then `claude -p` against the mock playing `script` (built from the project's path).
 */
interface RunOptions {
  /** Claude Code's --permission-mode (default: bypassPermissions, every call the CLI itself would allow). */
  mode?: 'default' | 'bypassPermissions';
  /** false: the CLI runs without the `toolgate` on PATH that installed the hook (a teammate without it). */
  toolgateOnPath?: boolean;
  /** Replaces the hook command install wrote (the twin with the old command form). */
  command?: string;
}

async function runClaude(
  name: string,
  sandbox: Sandbox,
  script: (project: string) => Turn[],
  o: RunOptions = {},
): Promise<Run> {
  const root = join(work, name);
  const home = join(root, 'home');
  const binDir = join(root, 'bin');
  const project = join(root, 'project');
  const marker = `TOOLGATE-E2E-SECRET-${randomUUID()}`;
  mkdirSync(join(home, '.ssh'), { recursive: true, mode: 0o700 });
  writeFileSync(
    join(home, '.ssh', 'id_rsa'),
    `-----BEGIN OPENSSH PRIVATE KEY-----\n${marker}\n-----END OPENSSH PRIVATE KEY-----\n`,
    { mode: 0o600 },
  );
  mkdirSync(binDir);
  mkdirSync(project);
  execFileSync('git', ['init', '-q', project]);
  writeFileSync(join(binDir, 'toolgate'), `#!/bin/sh\nexec '${process.execPath}' '${toolgateBin}' "$@"\n`);
  chmodSync(join(binDir, 'toolgate'), 0o755);
  const PATH = `${binDir}:${process.env.PATH}`;
  for (const args of [['init'], ['install', 'claude-code']]) {
    const r = spawnSync('toolgate', args, { cwd: project, encoding: 'utf8', env: { PATH, HOME: home } });
    expect(r.status, `toolgate ${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
  }
  if (o.command !== undefined) {
    const file = join(project, '.claude', 'settings.json');
    const settings = JSON.parse(readFileSync(file, 'utf8'));
    settings.hooks.PreToolUse[0].hooks[0].command = o.command;
    writeFileSync(file, JSON.stringify(settings, null, 2));
  }
  // The native policy's switch (docs/sandbox.md): `sandbox: uncertain`, or `off` for the run without it.
  const policyFile = join(project, 'toolgate.yaml');
  const policy = readFileSync(policyFile, 'utf8');
  const line = `sandbox: ${sandbox}`;
  writeFileSync(
    policyFile,
    /^sandbox:.*$/m.test(policy)
      ? policy.replace(/^sandbox:.*$/m, line)
      : policy.replace(/^rules:/m, `${line}\nrules:`),
  );
  expect(readFileSync(policyFile, 'utf8')).toMatch(new RegExp(`^${line}$`, 'm'));

  const api = await startMockMessagesApi(script(project));
  try {
    const child = spawn(
      claudeBin(),
      ['-p', 'go', '--permission-mode', o.mode ?? 'bypassPermissions', '--output-format', 'json'],
      {
        cwd: project,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          PATH: o.toolgateOnPath === false ? process.env.PATH : PATH,
          HOME: home,
          LANG: 'C.UTF-8',
          ANTHROPIC_BASE_URL: api.url,
          ANTHROPIC_API_KEY: 'sk-ant-api03-toolgate-e2e-dummy',
          // Offline: no telemetry, error reports, auto-update or other non-essential traffic; and the mock is
          // also the proxy for everything but itself, refusing every CONNECT (api.connects records them).
          DISABLE_TELEMETRY: '1',
          DISABLE_ERROR_REPORTING: '1',
          DISABLE_AUTOUPDATER: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          HTTPS_PROXY: api.url,
          HTTP_PROXY: api.url,
          NO_PROXY: '127.0.0.1,localhost',
          // As root, Claude Code refuses bypassPermissions unless told it runs in a sandbox (its own escape
          // hatch); as any other user this is not set.
          ...(process.getuid?.() === 0 ? { IS_SANDBOX: '1' } : {}),
        },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d;
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    let result: Run['result'];
    try {
      result = JSON.parse(stdout.trim().split('\n').pop() ?? '');
    } catch {
      result = undefined;
    }
    return { project, marker, api, exitCode, stdout, stderr, result };
  } finally {
    await api.close();
  }
}

function bashResult(run: Run, command: string): ToolResult | undefined {
  return run.api.toolResults().find((r) => r.name === 'Bash' && r.input?.command === command);
}

/** Each request that carried the key's marker back to the "model", and the tool results that held it. */
function leaks(run: Run): string[] {
  return run.api.requests
    .map((r, i) => ({ r, i }))
    .filter(({ r }) => r.body.includes(run.marker))
    .map(({ r, i }) => {
      const carriers = run.api
        .toolResults()
        .filter((t) => t.text.includes(run.marker))
        .map(
          (t) =>
            `${t.name} ${JSON.stringify(t.input?.command ?? t.input?.file_path)} returned ${JSON.stringify(t.text.slice(0, 200))}`,
        );
      return `request ${i + 1} (${r.method} ${r.url}) contains the key: ${carriers.join('; ') || 'outside any tool result'}`;
    });
}

function expectCompleted(run: Run): void {
  expect(run.exitCode, `claude exited ${run.exitCode}: ${run.stderr}${run.stdout}`).toBe(0);
  expect(run.result?.subtype, run.stdout).toBe('success');
  // the scripted turns were played: three requests of the agent loop (two tool calls, then the final text)
  expect(run.api.scriptedRequests().length).toBeGreaterThanOrEqual(3);
}

/** The model is told toolgate confined the call: a toolgate deny (or ask) in its result, or the sandbox notice. */
function confined(run: Run, result: ToolResult): boolean {
  const denied = result.isError && result.text.includes('toolgate');
  const noticed = run.api.requests.some((r) => /hook additional context: toolgate:/.test(r.body));
  return denied || noticed;
}

const leakScript = (project: string): Turn[] => [
  {
    content: [
      { type: 'text', text: 'I will write a small script.' },
      {
        type: 'tool_use',
        name: 'Write',
        input: {
          file_path: join(project, 'x.py'),
          content: "import os\nprint(open(os.path.expanduser('~/.ssh/id_rsa')).read())\n",
        },
      },
    ],
  },
  {
    content: [
      { type: 'tool_use', name: 'Bash', input: { command: 'python3 x.py', description: 'Run x.py' } },
    ],
  },
  { content: [{ type: 'text', text: 'Done.' }] },
];

const directScript = (): Turn[] => [
  {
    content: [
      {
        type: 'tool_use',
        name: 'Bash',
        input: { command: 'cat ~/.ssh/id_rsa', description: 'Show the key' },
      },
    ],
  },
  { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo after', description: 'Echo' } }] },
  { content: [{ type: 'text', text: 'Done.' }] },
];

const everydayScript = (project: string): Turn[] => [
  {
    content: [
      {
        type: 'tool_use',
        name: 'Write',
        input: { file_path: join(project, 'hello.py'), content: 'print("hi")\n' },
      },
    ],
  },
  {
    content: [
      { type: 'tool_use', name: 'Bash', input: { command: 'python3 hello.py', description: 'Run hello.py' } },
    ],
  },
  { content: [{ type: 'text', text: 'Done.' }] },
];

describe('the real Claude Code CLI with the toolgate hook, bypassPermissions, offline', () => {
  for (const sandbox of ['uncertain', 'off'] as const) {
    it(`sandbox: ${sandbox} — Write x.py, then Bash \`python3 x.py\`, returns no key to the model`, {
      timeout: 55_000,
    }, async () => {
      const run = await runClaude(`leak-${sandbox}`, sandbox, leakScript);
      expectCompleted(run);
      // the first step ran: the agent wrote its script into the workspace
      expect(existsSync(join(run.project, 'x.py'))).toBe(true);
      const result = bashResult(run, 'python3 x.py');
      expect(result, 'the CLI answered the Bash call').toBeDefined();
      expect(leaks(run), 'the private key reached the model').toEqual([]);
      // never unconfined: sandboxed (the model is told) with the sandbox on, denied without
      if (sandbox === 'uncertain') expect(confined(run, result!), result!.text).toBe(true);
      else expect(result!.isError && result!.text.includes('toolgate'), result!.text).toBe(true);
    });

    it(`sandbox: ${sandbox} — Bash \`cat ~/.ssh/id_rsa\` is denied (the twin the policy names)`, {
      timeout: 55_000,
    }, async () => {
      const run = await runClaude(`direct-${sandbox}`, sandbox, directScript);
      expectCompleted(run);
      const result = bashResult(run, 'cat ~/.ssh/id_rsa');
      expect(result).toBeDefined();
      expect(result!.isError).toBe(true);
      expect(result!.text).toMatch(/toolgate: .*PATH_DENIED/);
      expect(result!.text).toContain('~/.ssh/**');
      // the CLI itself counts it as a denied call
      expect(run.result?.permission_denials).toEqual([
        expect.objectContaining({
          tool_name: 'Bash',
          tool_input: expect.objectContaining({ command: 'cat ~/.ssh/id_rsa' }),
        }),
      ]);
      expect(leaks(run)).toEqual([]);
      // and the session goes on: the next call runs
      expect(bashResult(run, 'echo after')?.text.trim()).toBe('after');
    });
  }

  it('sandbox: uncertain — everyday code: Write hello.py, Bash `python3 hello.py`, "hi" reaches the model', {
    timeout: 55_000,
  }, async () => {
    const run = await runClaude('everyday-uncertain', 'uncertain', everydayScript);
    expectCompleted(run);
    expect(readFileSync(join(run.project, 'hello.py'), 'utf8')).toBe('print("hi")\n');
    const result = bashResult(run, 'python3 hello.py');
    expect(result, 'the CLI answered the Bash call').toBeDefined();
    expect(result!.isError, result!.text).toBe(false);
    expect(result!.text.trim()).toBe('hi');
    expect(leaks(run)).toEqual([]);
  });
});

// Issue 25: the hook as `toolgate install claude-code` writes it (the launcher: toolgate from the project or
// PATH, exit 2 whenever it cannot answer), in the real CLI — a Read of the key denied; in default mode a
// prompt-tier path asks (nobody can answer in -p: the call does not run) while an allowed Read gets no
// decision and runs (Claude Code's own flow: reads in the project need no approval); and a teammate without
// toolgate (not in the project, not on PATH) gets every call blocked, in bypassPermissions mode too.
const homeOf = (project: string) => join(dirname(project), 'home');

function toolResult(run: Run, name: string, key: string, value: string): ToolResult | undefined {
  return run.api.toolResults().find((r) => r.name === name && r.input?.[key] === value);
}

describe('the installed hook in the real Claude Code CLI: deny, ask, defer, and a missing toolgate (issue 25)', () => {
  it('bypassPermissions — Read ~/.ssh/id_rsa is denied with the envelope, and the key never reaches the model', {
    timeout: 55_000,
  }, async () => {
    const run = await runClaude('read-deny', 'off', (project) => [
      {
        content: [
          { type: 'tool_use', name: 'Read', input: { file_path: join(homeOf(project), '.ssh', 'id_rsa') } },
        ],
      },
      { content: [{ type: 'text', text: 'Done.' }] },
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    const result = toolResult(run, 'Read', 'file_path', join(homeOf(run.project), '.ssh', 'id_rsa'));
    expect(result, 'the CLI answered the Read').toBeDefined();
    expect(result!.isError).toBe(true);
    expect(result!.text).toMatch(/toolgate: .*PATH_DENIED/);
    expect(run.result?.permission_denials).toEqual([expect.objectContaining({ tool_name: 'Read' })]);
    expect(leaks(run)).toEqual([]);
  });

  it('default mode — a prompt-tier path (.env) asks and does not run in -p; an allowed Read gets no decision and runs', {
    timeout: 55_000,
  }, async () => {
    const env = `TOOLGATE-E2E-ENV-${randomUUID()}`;
    const readme = `TOOLGATE-E2E-README-${randomUUID()}`;
    const run = await runClaude(
      'ask-default',
      'off',
      (project) => {
        writeFileSync(join(project, '.env'), `API_KEY=${env}\n`);
        writeFileSync(join(project, 'README.md'), `${readme}\n`);
        return [
          { content: [{ type: 'tool_use', name: 'Read', input: { file_path: join(project, '.env') } }] },
          { content: [{ type: 'tool_use', name: 'Read', input: { file_path: join(project, 'README.md') } }] },
          { content: [{ type: 'text', text: 'Done.' }] },
        ];
      },
      { mode: 'default' },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    const asked = toolResult(run, 'Read', 'file_path', join(run.project, '.env'));
    expect(asked, 'the CLI answered the .env Read').toBeDefined();
    expect(asked!.isError, asked!.text).toBe(true);
    expect(asked!.text).toMatch(/^toolgate: approval needed — read .*\.env: path matches prompt rule/);
    expect(
      run.api.requests.some((r) => r.body.includes(env)),
      'the .env content reached the model',
    ).toBe(false);
    expect(run.result?.permission_denials).toEqual([
      expect.objectContaining({ tool_name: 'Read', tool_input: { file_path: join(run.project, '.env') } }),
    ]);
    const deferred = toolResult(run, 'Read', 'file_path', join(run.project, 'README.md'));
    expect(deferred?.isError, deferred?.text).toBe(false);
    expect(deferred!.text).toContain(readme);
  });

  for (const mode of ['bypassPermissions', 'default'] as const) {
    it(`${mode} — toolgate missing (not in the project, not on PATH): every call is blocked, with the launcher's reason`, {
      timeout: 55_000,
    }, async () => {
      // The monorepo's PATH must not hold a toolgate either, or this would test nothing.
      expect(
        spawnSync('sh', ['-c', 'command -v toolgate'], { env: { PATH: process.env.PATH } }).status,
      ).not.toBe(0);
      const run = await runClaude(
        `missing-${mode}`,
        'off',
        (project) => [
          {
            content: [
              {
                type: 'tool_use',
                name: 'Bash',
                input: {
                  command: `cat ~/.ssh/id_rsa; touch ${join(project, 'ran')}`,
                  description: 'Show the key',
                },
              },
            ],
          },
          {
            content: [
              { type: 'tool_use', name: 'Read', input: { file_path: join(project, 'toolgate.yaml') } },
            ],
          },
          { content: [{ type: 'text', text: 'Done.' }] },
        ],
        { mode, toolgateOnPath: false },
      );
      expect(run.exitCode, run.stderr).toBe(0);
      // the settings file is the one install wrote: the launcher, by name
      const settings = JSON.parse(readFileSync(join(run.project, '.claude', 'settings.json'), 'utf8'));
      expect(settings.hooks.PreToolUse[0].hooks[0].command).toMatch(/toolgate hook claude-code;/);
      const results = run.api.toolResults();
      expect(results.map((r) => r.name)).toEqual(['Bash', 'Read']);
      for (const r of results) {
        expect(r.isError, `${r.name} ran: ${r.text}`).toBe(true);
        expect(r.text).toMatch(
          /toolgate: call blocked: toolgate is not installed \(no .*node_modules\/toolgate\/bin\/toolgate\.cjs, no toolgate on PATH\)/,
        );
      }
      expect(existsSync(join(run.project, 'ran')), 'the Bash command ran').toBe(false);
      expect(leaks(run)).toEqual([]);
      // Read returns the policy file's text when it runs (its first line, as `toolgate init` writes it): it did not
      expect(run.api.requests.some((r) => r.body.includes('# toolgate policy for '))).toBe(false);
    });
  }
  it('the twin: the old command form (node and an absolute path that is gone) lets the same Bash call run — what the launcher prevents', {
    timeout: 55_000,
  }, async () => {
    const run = await runClaude(
      'missing-old-form',
      'off',
      (project) => [
        {
          content: [
            {
              type: 'tool_use',
              name: 'Bash',
              input: {
                command: `cat ~/.ssh/id_rsa; touch ${join(project, 'ran')}`,
                description: 'Show the key',
              },
            },
          ],
        },
        { content: [{ type: 'text', text: 'Done.' }] },
      ],
      {
        toolgateOnPath: false,
        command: `${process.execPath} ${join(work, 'gone', 'toolgate.cjs')} hook claude-code`,
      },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(existsSync(join(run.project, 'ran')), 'exit 1 is a non-blocking error: the command ran').toBe(
      true,
    );
    expect(leaks(run).length, 'and the key reached the model').toBeGreaterThan(0);
  });
});
