import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CallContext, createGuard, type GuardPlugin, Stage, type ToolCall } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { type DialectName, folderRules, loadPolicy } from '../src/index.js';

// Fixture-driven conformance: each `fixtures/<dialect>.cases` file is a list of lines
//   expect | tool | args-json | what the seed says
// under `policy: <file> [agent=<name>] [overlay=<file>]` headers. Adding a case is adding a line.
const dir = join(import.meta.dirname, 'fixtures');
const HOME = '/home/user';
const WS = '/ws';
const env = { HOME, HERMES_HOME: '/opt/hermes', USER: 'user' };
const ctx: CallContext = { sessionId: 's', agentId: 'a', cwd: WS, workspace: WS, home: HOME, env };

// Stands in for @toolgate/shell (another package) in these fixtures: a shell call whose args carry
// `accesses: [[op, path], …]` is claimed and yields those accesses with a `shell:` origin, exactly as the
// shell plugin's contract says. A shell call without them is left unclaimed.
const fixtureShell: GuardPlugin = {
  name: 'fixture-shell',
  apply(hooks) {
    hooks.collectAccesses.tap({ stage: Stage.EXTRACT }, (accesses, call, state) => {
      const list = call.args.accesses;
      if (!Array.isArray(list)) return accesses;
      state.claim('shell');
      return [
        ...accesses,
        // `[op, path]`, op `read`/`write`/`list`, a trailing `*` for a subtree (`ls -R` is `list*`).
        ...list.map(([op, path]: [string, string]) => {
          const base = op.replace(/\*$/, '');
          return state.access(path, base === 'write' ? 'write' : base === 'list' ? 'list' : 'read', {
            origin: 'shell:fixture',
            scope: op.endsWith('*') ? 'subtree' : 'path',
          });
        }),
      ];
    });
  },
};

interface Case {
  line: number;
  expect: string;
  call: ToolCall;
  note: string;
}

function parse(file: string) {
  const dialect = file.replace(/\.cases$/, '') as DialectName;
  const groups: { header: string; policy: () => ReturnType<typeof loadPolicy>; cases: Case[] }[] = [];
  readFileSync(join(dir, file), 'utf8')
    .split('\n')
    .forEach((text, i) => {
      const line = text.trim();
      if (line === '' || line.startsWith('#')) return;
      if (line.startsWith('policy:')) {
        const [policyFile, ...opts] = line.slice(7).trim().split(/\s+/);
        const agent = opts.find((o) => o.startsWith('agent='))?.slice(6);
        const overlays = opts
          .filter((o) => o.startsWith('overlay='))
          .map((o) => join(dir, 'policies', o.slice(8)));
        groups.push({
          header: line,
          policy: () =>
            loadPolicy({
              dialect,
              file: join(dir, 'policies', policyFile as string),
              env,
              overlays,
              ...(agent ? { agent } : {}),
            }),
          cases: [],
        });
        return;
      }
      const [exp, tool, args, note] = line.split('|').map((s) => s.trim());
      const group = groups.at(-1);
      if (!group || !exp || !tool || !args) throw new Error(`${file}:${i + 1}: malformed case`);
      group.cases.push({
        line: i + 1,
        expect: exp,
        call: { tool, args: JSON.parse(args) },
        note: note ?? '',
      });
    });
  return { dialect, groups };
}

const files = readdirSync(dir).filter((f) => f.endsWith('.cases'));
let total = 0;
for (const file of files) {
  const { groups } = parse(file);
  describe(file, () => {
    for (const group of groups) {
      describe(group.header, () => {
        const policy = group.policy();
        // The fixtures' paths are virtual (nothing exists under /ws here): subtree cases are judged by the
        // worst case, so they test what each dialect compiles to, not this machine's files. The walk of real
        // trees is tested per dialect in subtreeDialects.test.ts.
        const guard = createGuard({
          plugins: [fixtureShell, folderRules({ policy, subtreeWalk: false })],
        });
        for (const c of group.cases) {
          total++;
          it(`${file}:${c.line} ${c.expect} ${c.call.tool} ${JSON.stringify(c.call.args)} ${c.note}`, async () => {
            const d = await guard.check(c.call, ctx, { resolvePrompts: false });
            const [action, code] = c.expect.split(':');
            expect(d.action, d.reasons.map((r) => r.reason).join('; ')).toBe(action);
            if (code) expect(d.reasons[0]?.code).toBe(code);
          });
        }
      });
    }
  });
}

describe('conformance corpus', () => {
  it('has well over 200 cases across the dialects', () => {
    expect(total).toBeGreaterThan(250);
    expect(files.length).toBe(6);
  });
});
