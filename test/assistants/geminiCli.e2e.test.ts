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
import { type GeminiTurn, type MockGeminiApi, startMockGeminiApi } from './mockGeminiApi.js';

// Issue 25: the real Gemini CLI (npm @google/gemini-cli, pinned in test/package.json; plain JavaScript that runs
// on Node 20) with the BeforeTool hook `toolgate install gemini-cli` writes, driven offline by a loopback mock
// of the Gemini API (GOOGLE_GEMINI_BASE_URL, `security.auth.selectedType: "gemini-api-key"` with a dummy key, the
// project in ~/.gemini/trustedFolders.json), headless (`-p`), with and without --yolo. toolgate's deny blocks
// the call; and where toolgate is missing (not in the project, not on PATH) the launcher's exit 2 blocks every
// call — the command never runs, the key never reaches the model. Without --yolo, headless Gemini CLI offers
// only tools that need no approval (read_file, …), and read_file keeps to the workspace, so ~/.ssh is added as
// a workspace directory (--include-directories): Gemini CLI itself would read the key; toolgate must not let
// it. The twin with the old command form (a bare node and a path that is gone) shows the call running.

const require = createRequire(import.meta.url);
const GEMINI_VERSION = '0.61.0';
const toolgateBin = fileURLToPath(new URL('../../packages/cli/bin/toolgate.cjs', import.meta.url));
const work = realpathSync(mkdtempSync(join(tmpdir(), 'tg-e2e-gemini-')));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function geminiBin(): string {
  return join(dirname(require.resolve('@google/gemini-cli/package.json')), 'bundle', 'gemini.js');
}

beforeAll(() => {
  // Never a skip: a missing CLI fails every case here, with the reason.
  const bin = geminiBin();
  const r = spawnSync(process.execPath, [bin, '--version'], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { PATH: process.env.PATH, HOME: work, GEMINI_CLI_NO_RELAUNCH: 'true' },
  });
  if (r.status !== 0 || r.stdout.trim() !== GEMINI_VERSION)
    throw new Error(
      `Gemini CLI ${GEMINI_VERSION} does not run from ${bin} (status ${r.status}, ${r.error?.message ?? ''} ${r.stdout}${r.stderr}): run \`pnpm install\``,
    );
}, 40_000);

interface Run {
  project: string;
  home: string;
  marker: string;
  api: MockGeminiApi;
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

interface RunOptions {
  yolo: boolean;
  /** false: Gemini CLI runs without the `toolgate` on PATH that installed the hook (a teammate without it). */
  toolgateOnPath?: boolean;
  /** Replaces the hook command install wrote (the twin with the old command form). */
  command?: string;
}

/**
 * A fresh project with its own HOME (a fake ~/.ssh/id_rsa holding a unique marker), `toolgate init` and
 * `toolgate install gemini-cli` as a user runs them (the built CLI through a `toolgate` on PATH), then
 * `gemini -p` against the mock playing `script`.
 */
async function runGemini(
  name: string,
  script: (project: string, home: string) => GeminiTurn[],
  o: RunOptions,
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
  const withToolgate = `${binDir}:${process.env.PATH}`;
  for (const args of [['init'], ['install', 'gemini-cli']]) {
    const r = spawnSync('toolgate', args, {
      cwd: project,
      encoding: 'utf8',
      env: { PATH: withToolgate, HOME: home },
    });
    expect(r.status, `toolgate ${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
  }
  const settingsFile = join(project, '.gemini', 'settings.json');
  if (o.command !== undefined) {
    const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
    settings.hooks.BeforeTool[0].hooks[0].command = o.command;
    writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  }
  // The user's Gemini CLI: API-key auth, folder trust on and this project trusted (so its .gemini/settings.json
  // — the hook — is loaded), no usage statistics.
  mkdirSync(join(home, '.gemini'));
  writeFileSync(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: true } },
      privacy: { usageStatisticsEnabled: false },
    }),
  );
  writeFileSync(join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [project]: 'TRUST_FOLDER' }));

  const api = await startMockGeminiApi(script(project, home));
  try {
    const args = ['-p', 'go', '--output-format', 'json'];
    if (o.yolo) args.push('--yolo');
    else args.push('--include-directories', join(home, '.ssh'));
    const child = spawn(process.execPath, [geminiBin(), ...args], {
      cwd: project,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: o.toolgateOnPath === false ? process.env.PATH : withToolgate,
        HOME: home,
        LANG: 'C.UTF-8',
        NO_COLOR: '1',
        GEMINI_API_KEY: 'toolgate-e2e-dummy-key',
        GOOGLE_GEMINI_BASE_URL: api.url,
        // one process: no relaunch with a larger heap
        GEMINI_CLI_NO_RELAUNCH: 'true',
        // offline: the mock is also the proxy for everything but itself, refusing every CONNECT
        HTTPS_PROXY: api.url,
        HTTP_PROXY: api.url,
        NO_PROXY: '127.0.0.1,localhost',
      },
    });
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
    return { project, home, marker, api, exitCode, stdout, stderr };
  } finally {
    await api.close();
  }
}

/** Each request that carried the key's marker back to the "model". */
function leaks(run: Run): string[] {
  return run.api.requests
    .map((r, i) => ({ r, i }))
    .filter(({ r }) => r.body.includes(run.marker))
    .map(({ r, i }) => `request ${i + 1} (${r.method} ${r.url}) contains the key`);
}

function expectCompleted(run: Run, calls: number): void {
  expect(run.exitCode, `gemini exited ${run.exitCode}: ${run.stderr}${run.stdout}`).toBe(0);
  expect(JSON.parse(run.stdout).response, run.stdout).toBe('Done.');
  // every scripted call was answered (the last request carries one response per call)
  expect(run.api.functionResults(), run.stderr).toHaveLength(calls);
}

const keyAndMark = (project: string) => `cat ~/.ssh/id_rsa; touch ${join(project, 'ran')}`;

const shellScript = (project: string): GeminiTurn[] => [
  { parts: [{ functionCall: { name: 'run_shell_command', args: { command: keyAndMark(project) } } }] },
  { parts: [{ functionCall: { name: 'run_shell_command', args: { command: 'echo after' } } }] },
  { parts: [{ text: 'Done.' }] },
];

const readScript = (project: string, home: string): GeminiTurn[] => [
  { parts: [{ functionCall: { name: 'read_file', args: { file_path: join(home, '.ssh', 'id_rsa') } } }] },
  { parts: [{ functionCall: { name: 'read_file', args: { file_path: join(project, 'toolgate.yaml') } } }] },
  { parts: [{ text: 'Done.' }] },
];

/** The first line `toolgate init` writes: in a request, the policy file was read. */
const POLICY_TEXT = '# toolgate policy for ';

const MISSING =
  /toolgate: call blocked: toolgate is not installed \(no .*node_modules\/toolgate\/bin\/toolgate\.cjs, no toolgate on PATH\)/;

describe('the real Gemini CLI with the toolgate hook, headless, offline (issue 25)', () => {
  it('--yolo — run_shell_command `cat ~/.ssh/id_rsa` is denied by the policy; the next command runs', {
    timeout: 55_000,
  }, async () => {
    const run = await runGemini('yolo-deny', shellScript, { yolo: true });
    expectCompleted(run, 2);
    const [denied, after] = run.api.functionResults();
    expect(denied!.args?.command).toBe(keyAndMark(run.project));
    expect(denied!.text).toMatch(/Tool execution blocked: toolgate: .*PATH_DENIED/);
    expect(denied!.text).toContain('path matches deny rule ~/.ssh/**');
    expect(existsSync(join(run.project, 'ran')), 'the denied command ran').toBe(false);
    expect(leaks(run)).toEqual([]);
    expect(after!.text).toContain('after');
    expect(after!.text).not.toMatch(/blocked/);
  });

  it('without --yolo — read_file of the key (its directory a workspace directory) is denied; a project file is read', {
    timeout: 55_000,
  }, async () => {
    const run = await runGemini('default-deny', readScript, { yolo: false });
    expectCompleted(run, 2);
    const [denied, read] = run.api.functionResults();
    expect(denied!.text).toMatch(/Tool execution blocked: toolgate: .*PATH_DENIED/);
    expect(leaks(run)).toEqual([]);
    expect(read!.text).toContain(POLICY_TEXT);
  });

  for (const yolo of [true, false]) {
    it(`${yolo ? '--yolo' : 'without --yolo'} — toolgate missing (not in the project, not on PATH): every call is blocked with the launcher's reason`, {
      timeout: 55_000,
    }, async () => {
      expect(
        spawnSync('sh', ['-c', 'command -v toolgate'], { env: { PATH: process.env.PATH } }).status,
      ).not.toBe(0);
      const run = await runGemini(`missing-${yolo ? 'yolo' : 'default'}`, yolo ? shellScript : readScript, {
        yolo,
        toolgateOnPath: false,
      });
      expectCompleted(run, 2);
      for (const r of run.api.functionResults()) {
        expect(r.text, `${r.name} ran`).toMatch(/Tool execution blocked: /);
        expect(r.text).toMatch(MISSING);
      }
      expect(existsSync(join(run.project, 'ran')), 'the command ran').toBe(false);
      expect(leaks(run)).toEqual([]);
      expect(run.api.requests.some((r) => r.body.includes(POLICY_TEXT))).toBe(false);
    });
  }

  it('the twin: the old command form (node and an absolute path that is gone) lets the key through in --yolo', {
    timeout: 55_000,
  }, async () => {
    const run = await runGemini('missing-old-form', shellScript, {
      yolo: true,
      toolgateOnPath: false,
      command: `${process.execPath} ${join(work, 'gone', 'toolgate.cjs')} hook gemini-cli`,
    });
    expectCompleted(run, 2);
    expect(existsSync(join(run.project, 'ran')), 'exit 1 is a warning: the command ran').toBe(true);
    expect(leaks(run).length, 'and the key reached the model').toBeGreaterThan(0);
  });
});
