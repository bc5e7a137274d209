import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallContext, Decision, Guard } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkspaces, type Workspaces } from './buildWorkspaces.js';
import { createUsabilityGuard } from './createUsabilityGuard.js';

// Issue 12's false denies, each pinned by a test that it is allowed where no denied file is touched, and by a
// twin that flips to a certain deny once the command really touches a denied file (a `.env` that now exists
// beneath its target, a `.env` the .gitignore does not list, a denied path the twin adds). Workspaces: A has no
// .env, B a gitignored root .env, C a root .env the .gitignore does not list, S is A plus `src/.env`.
type Ws = 'A' | 'B' | 'C' | 'S';

interface Twin {
  /** The command the issue names as a false deny. */
  command: string;
  /** Workspaces where it must be allowed (A always; B where the issue says the gitignored .env changes nothing). */
  allowIn: Ws[];
  /** The twin: a command (often the same) and the workspace where it really touches a denied file. */
  twin: { command: string; in: Ws; why: string };
}

const TWINS: Twin[] = [
  {
    command: 'git commit -m "Fix widget parsing"',
    allowIn: ['A', 'B', 'C'],
    twin: { command: 'git add -A && git commit -m "all"', in: 'C', why: 'stages the unignored .env' },
  },
  {
    command: 'git log',
    allowIn: ['A', 'B', 'C'],
    twin: { command: 'git log > .env', in: 'B', why: 'the redirection writes .env' },
  },
  {
    command: 'git status',
    allowIn: ['A', 'B', 'C'],
    twin: { command: 'git status && cat .env', in: 'B', why: 'reads .env' },
  },
  {
    command: 'git add -A',
    allowIn: ['A', 'B'],
    twin: { command: 'git add -A', in: 'C', why: 'the .env is not ignored, so git add reads it' },
  },
  {
    command: 'cp -r src /tmp/x',
    allowIn: ['A', 'B'],
    twin: { command: 'cp -r src /tmp/x', in: 'S', why: 'src/.env exists and is copied' },
  },
  {
    command: 'tar czf /tmp/a.tgz src',
    allowIn: ['A', 'B'],
    twin: { command: 'tar czf /tmp/a.tgz src', in: 'S', why: 'src/.env exists and is archived' },
  },
  {
    command: 'tar czf /tmp/a.tgz .',
    allowIn: ['A'],
    twin: { command: 'tar czf /tmp/a.tgz .', in: 'B', why: 'the root .env exists and is archived' },
  },
  {
    command: 'grep -r KEY .',
    allowIn: ['A'],
    twin: { command: 'grep -r KEY .', in: 'B', why: 'grep -r reads the root .env' },
  },
  {
    command: 'du -sh src',
    allowIn: ['A', 'B', 'S'],
    twin: { command: 'du -sh ~/.ssh', in: 'A', why: 'lists the denied ~/.ssh itself' },
  },
  {
    command: 'head -n 5 *.md',
    allowIn: ['A', 'B'],
    twin: { command: 'head -n 5 .*', in: 'B', why: 'the glob .* matches the existing .env' },
  },
  {
    command: 'wc -l src/*.py',
    allowIn: ['A', 'B', 'S'],
    twin: { command: 'wc -l src/.e*', in: 'S', why: 'the glob matches the existing src/.env' },
  },
  {
    command: 'mv notes.txt docs/notes.txt',
    allowIn: ['A', 'B'],
    twin: { command: 'mv notes.txt .env', in: 'B', why: 'writes over .env' },
  },
  {
    command: 'cd ..',
    allowIn: ['A', 'B'],
    twin: { command: 'cd .. && ls', in: 'A', why: 'lists the parent, which the policy does not grant' },
  },
  {
    command: 'cd /',
    allowIn: ['A', 'B'],
    twin: { command: 'cd / && cat etc/shadow', in: 'A', why: 'reads /etc/shadow' },
  },
  {
    command: 'test -z "$CI"',
    allowIn: ['A', 'B'],
    twin: { command: 'test -z "$(cat .env)"', in: 'B', why: 'the substitution reads .env' },
  },
  {
    command: '[ "$A" = /bin/zsh ]',
    allowIn: ['A', 'B'],
    twin: { command: '[ "$(cat ~/.ssh/id_rsa)" = /bin/zsh ]', in: 'A', why: 'reads the ssh key' },
  },
  {
    command: 'export PATH=$PATH:x',
    allowIn: ['A', 'B'],
    twin: { command: 'export KEY=$(cat .env)', in: 'B', why: 'the substitution reads .env' },
  },
  {
    command: 'export -n V',
    allowIn: ['A', 'B'],
    twin: { command: 'export -n V; cat ~/.ssh/id_rsa', in: 'A', why: 'reads the ssh key' },
  },
  {
    command: "git blame -L '/export/',+10 src/util.ts",
    allowIn: ['A', 'B'],
    twin: { command: "git blame -L '/export/',+10 .env", in: 'B', why: 'blames (reads) .env' },
  },
  {
    command: 'kubectl exec pod -- ls /',
    allowIn: ['A', 'B'],
    twin: {
      command: 'kubectl exec pod -- ls / > ~/.ssh/listing',
      in: 'A',
      why: 'the local redirection writes ~/.ssh',
    },
  },
  {
    command: 'cat README.md',
    allowIn: ['A', 'B'],
    twin: { command: 'cat .env', in: 'B', why: 'reads .env' },
  },
];

let workspaces: Workspaces;
let guard: Guard;
const ctx: Partial<Record<Ws, CallContext>> = {};

beforeAll(() => {
  workspaces = buildWorkspaces();
  guard = createUsabilityGuard();
  const { A, B, C } = workspaces.contexts;
  Object.assign(ctx, { A, B, C });
  const s = join(workspaces.root, 'wsS');
  cpSync(A.workspace, s, { recursive: true, verbatimSymlinks: true });
  writeFileSync(join(s, 'src', '.env'), 'API_KEY=sk-live-0000\n');
  ctx.S = { ...A, sessionId: 'usability-S', cwd: s, workspace: s };
});

afterAll(() => workspaces?.dispose());

function check(command: string, ws: Ws): Promise<Decision> {
  const c = ctx[ws];
  if (!c) throw new Error(`no workspace ${ws}`);
  return guard.check({ tool: 'Bash', args: { command } }, c);
}

const brief = (d: Decision) => `${d.action} ${d.reasons[0]?.code ?? ''} ${d.reasons[0]?.reason ?? ''}`.trim();

describe('issue 12 false denies and their twins', () => {
  for (const t of TWINS) {
    for (const ws of t.allowIn) {
      it(`allows \`${t.command}\` in workspace ${ws}`, async () => {
        expect(brief(await check(t.command, ws))).toBe('allow');
      });
    }
    it(`twin denies \`${t.twin.command}\` in workspace ${t.twin.in}: ${t.twin.why}`, async () => {
      const d = await check(t.twin.command, t.twin.in);
      // A certain deny, not "uncertain": the twin touches a denied file that exists or is named.
      expect(d.action, brief(d)).toBe('deny');
      expect(d.reasons[0]?.code, brief(d)).toBe('PATH_DENIED');
    });
  }
});
