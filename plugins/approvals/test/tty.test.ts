import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { count, TmuxSession, waitForFile } from './helpers/tmux.js';
import { makeWorkspace, type Workspace } from './helpers/workspace.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = resolve(here, '../../..');
const host = join(here, 'fixtures', 'ttyHost.ts');
const QUESTION = 'Allow this operation? [';
// The host resolves workspace packages to src/ like the tests do, and runs TypeScript through tsx.
const node = [process.execPath, '--conditions=source', '--import', 'tsx', host];

let ws: Workspace;
let term: TmuxSession | undefined;
beforeEach(() => {
  ws = makeWorkspace();
});
afterEach(() => {
  term?.kill();
  term = undefined;
  ws.cleanup();
});

type Call = { sessionId: string; tool: string; args: Record<string, unknown> };
const write = (path: string, sessionId = 's1'): Call => ({ sessionId, tool: 'write_file', args: { path } });

function startHost(tag: string, calls: Call[], timeoutMs = 20_000, extraEnv: Record<string, string> = {}) {
  const results = join(ws.root, `results-${tag}.jsonl`);
  const config = JSON.stringify({ workspace: join(ws.root, 'ws'), timeoutMs, calls });
  term = new TmuxSession(tag);
  // Keep the pane alive after the host exits so the final screen can still be read.
  const script = `${node.map((a) => `'${a}'`).join(' ')}; echo HOST-EXITED-$?; sleep 60`;
  term.start(['sh', '-c', script], { HOST_CONFIG: config, HOST_RESULTS: results, CI: '', ...extraEnv }, repo);
  return { term, results };
}

function decisions(text: string) {
  return text
    .trim()
    .split('\n')
    .filter((l) => l !== 'DONE' && l !== 'SIGINT')
    .map(
      (l) =>
        JSON.parse(l) as { action: string; by: string | null; code: string | null; reason: string | null },
    );
}

describe('tty strategy in a real pseudo-terminal (tmux)', () => {
  it('seed 002 "[Y/n/a/q]": Enter alone is Y by default (the capital is the default)', async () => {
    const { term, results } = startHost('enter', [write('secrets/a.txt'), write('secrets/b.txt')]);
    await term.waitFor((s) => count(s, QUESTION) >= 1, 'the question');
    expect(term.screen()).toContain('Allow this operation? [Y/n/a/q]');
    term.type('');
    const out = decisions(await waitForFile(results, 'DONE'));
    // "Y - Allow and confirm the path's containing directory for this session": b.txt needs no question.
    expect(out.map((d) => [d.action, d.by])).toEqual([
      ['allow', 'tty'],
      ['allow', 'grant'],
    ]);
    expect(count(term.screen(), QUESTION)).toBe(1);
  });

  it('answers Y, n, a and q as seed 002 says; with emptyAnswer ask-again, re-asks on empty or unknown input', async () => {
    const { term, results } = startHost(
      'keys',
      [
        write('secrets/a.txt'), // Y: allow, directory granted
        write('secrets/b.txt'), // answered by the grant, no question
        write('secrets/deep/c\u001b[2J.txt'), // Enter, "maybe", then n: denied
        write('secrets/deep/d.txt'), // a: allow, subtree granted
        write('secrets/deep/e/f.txt'), // answered by the grant
        { sessionId: 's1', tool: 'read_file', args: { path: 'secrets/r.txt' } }, // q: session cancelled
        write('secrets/deep/g.txt'), // cancelled session: denied without a question
      ],
      20_000,
      { HOST_EMPTY: 'ask-again' },
    );
    const asked = (n: number) => (s: string) => count(s, QUESTION) >= n;
    let screen = await term.waitFor(asked(1), 'the first question');
    expect(screen).toContain('Path Confirmation Required');
    expect(screen).toContain(`Operation: write   Path: ${join(ws.secrets, 'a.txt')}`);
    expect(screen).toContain('Allow this operation? [y/n/a/q]');
    term.type('Y');
    screen = await term.waitFor(asked(2), 'the second question');
    expect(screen).toContain(`* write allowed in files in ${ws.secrets} for the rest of this session`);
    // The escape sequence in the model's path is shown escaped, never interpreted by the terminal.
    expect(screen).toContain('c\\u001b[2J.txt');
    term.type('');
    screen = await term.waitFor(asked(3), 're-ask after an empty line');
    term.type('maybe');
    screen = await term.waitFor(asked(4), 're-ask after an unknown answer');
    expect(screen).toContain('Please answer y, n, a or q.');
    term.type('n');
    screen = await term.waitFor(asked(5), 'the question for d.txt');
    expect(screen).toContain(join(ws.secrets, 'deep', 'd.txt'));
    term.type('a');
    screen = await term.waitFor(asked(6), 'the read question');
    expect(screen).toContain(`Operation: read   Path: ${join(ws.secrets, 'r.txt')}`);
    term.type('q');
    const out = decisions(await waitForFile(results, 'DONE'));
    expect(out.map((d) => [d.action, d.by, d.code])).toEqual([
      ['allow', 'tty', null],
      ['allow', 'grant', null],
      ['deny', 'tty', 'PROMPT_DENIED'],
      ['allow', 'tty', null],
      ['allow', 'grant', null],
      ['deny', 'tty', 'SESSION_CANCELLED'],
      // the cancelled session is refused before any prompt (beforeToolCall), so no approver is named
      ['deny', null, 'SESSION_CANCELLED'],
    ]);
    screen = await term.waitFor((s) => s.includes('HOST-EXITED-0'), 'the host to exit');
    expect(count(screen, QUESTION)).toBe(6);
  });

  it('an unanswered question times out: denied, withdrawn from the screen, and the next one still works', async () => {
    const { term, results } = startHost('timeout', [write('secrets/a.txt'), write('secrets/b.txt')], 700);
    await term.waitFor((s) => count(s, QUESTION) >= 1, 'the first question');
    const screen = await term.waitFor(
      (s) => count(s, QUESTION) >= 2,
      'the second question after the timeout',
    );
    expect(screen).toContain('(question withdrawn: timed out or answered elsewhere)');
    term.type('y');
    const out = decisions(await waitForFile(results, 'DONE'));
    expect(out[0]).toMatchObject({ action: 'deny', code: 'PROMPT_TIMEOUT' });
    expect(out[0]!.reason).toMatch(/timed out/);
    expect(out[1]).toMatchObject({ action: 'allow', by: 'tty' });
  });

  it('CI=true on a real terminal ⇒ denied without a question', async () => {
    const { term, results } = startHost('ci', [write('secrets/a.txt')], 20_000, { CI: 'true' });
    const out = decisions(await waitForFile(results, 'DONE'));
    expect(out[0]).toMatchObject({ action: 'deny', by: 'tty', code: 'PROMPT_DENIED' });
    expect(out[0]!.reason).toMatch(/no interactive terminal/);
    const screen = await term.waitFor((s) => s.includes('HOST-EXITED-0'), 'the host to exit');
    expect(screen).not.toContain(QUESTION);
  });

  it('no terminal on stdin/stdout (pipes) ⇒ denied without a question', () => {
    const results = join(ws.root, 'results-pipe.jsonl');
    const config = JSON.stringify({
      workspace: join(ws.root, 'ws'),
      timeoutMs: 20_000,
      calls: [write('secrets/a.txt')],
    });
    const run = spawnSync(node[0]!, node.slice(1), {
      cwd: repo,
      env: { ...process.env, HOST_CONFIG: config, HOST_RESULTS: results, CI: '' },
      input: 'y\n',
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(0);
    expect(run.stdout).not.toContain(QUESTION);
    const out = decisions(readFileSync(results, 'utf8'));
    expect(out).toEqual([expect.objectContaining({ action: 'deny', by: 'tty', code: 'PROMPT_DENIED' })]);
    expect(out[0]!.reason).toMatch(/no interactive terminal/);
  });

  it('Ctrl-D denies the call and the next question still works', async () => {
    const { term, results } = startHost('eof', [write('secrets/a.txt'), write('secrets/b.txt')]);
    await term.waitFor((s) => count(s, QUESTION) >= 1, 'the first question');
    term.keys('C-d');
    await term.waitFor((s) => count(s, QUESTION) >= 2, 'the second question');
    term.type('y');
    const out = decisions(await waitForFile(results, 'DONE'));
    expect(out[0]).toMatchObject({ action: 'deny', by: 'tty' });
    expect(out[0]!.reason).toMatch(/Ctrl-D/);
    expect(out[1]).toMatchObject({ action: 'allow', by: 'tty' });
  });

  it('Ctrl-C denies the call and is passed on to the host as SIGINT', async () => {
    const handled = startHost('sigint-handled', [write('secrets/a.txt'), write('secrets/b.txt')], 20_000, {
      HOST_SIGINT: 'ignore',
    });
    await handled.term.waitFor((s) => count(s, QUESTION) >= 1, 'the first question');
    handled.term.keys('C-c');
    await handled.term.waitFor((s) => count(s, QUESTION) >= 2, 'the second question');
    handled.term.type('n');
    const text = await waitForFile(handled.results, 'DONE');
    expect(text).toContain('SIGINT');
    const out = decisions(text);
    expect(out[0]).toMatchObject({ action: 'deny', by: 'tty' });
    expect(out[0]!.reason).toMatch(/Ctrl-C/);
    handled.term.kill();

    // A host without a handler stops, as Ctrl-C always does; nothing was allowed.
    const plain = startHost('sigint-default', [write('secrets/a.txt'), write('secrets/b.txt')]);
    await plain.term.waitFor((s) => count(s, QUESTION) >= 1, 'the first question');
    plain.term.keys('C-c');
    const screen = await plain.term.waitFor((s) => s.includes('HOST-EXITED-'), 'the host to stop');
    expect(screen).toContain('HOST-EXITED-130');
    expect(count(screen, QUESTION)).toBe(1);
  });
});
