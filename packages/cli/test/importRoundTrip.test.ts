import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

// Issue 25, item 2: an import keeps the meaning of every source rule. Each fixture folder holds real settings
// files (Claude Code: user.json → ~/.claude/settings.json, project.json → .claude/settings.json, local.json →
// .claude/settings.local.json; Gemini CLI: policy.toml) and cases.json: per source rule, a call and the
// decision it must get from the imported policy (`check`), optionally the hook's answer, or the rule that
// must be reported as not converted (a rule Claude Code keeps applying: the hook defers to it).
interface Case {
  rule: string;
  call?: { tool: string; args: Record<string, unknown> };
  expect?: 'allow' | 'deny' | 'prompt';
  hook?: 'defer' | 'deny' | 'ask';
  notConverted?: string;
}

const FIXTURES = new URL('./fixtures/import/', import.meta.url).pathname;
const EXIT = { allow: 0, deny: 1, prompt: 3 } as const;
const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function setUp(assistant: string, name: string): { project: string; home: string; cases: Case[] } {
  const root = realpathSync.native(mkdtempSync(join(tmpdir(), `toolgate-roundtrip-${name}-`)));
  roots.push(root);
  const project = join(root, 'app');
  const home = join(root, 'home');
  const dir = join(FIXTURES, assistant, name);
  mkdirSync(join(project, '.claude'), { recursive: true });
  mkdirSync(join(home, '.claude'), { recursive: true });
  const place: Record<string, string> = {
    'user.json': join(home, '.claude', 'settings.json'),
    'project.json': join(project, '.claude', 'settings.json'),
    'local.json': join(project, '.claude', 'settings.local.json'),
    'policy.toml': join(project, 'policy.toml'),
  };
  for (const [file, target] of Object.entries(place))
    if (existsSync(join(dir, file))) copyFileSync(join(dir, file), target);
  return { project, home, cases: JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8')) as Case[] };
}

for (const assistant of ['claude-code', 'gemini-cli'])
  describe(`toolgate import ${assistant}: round trip`, () => {
    for (const name of readdirSync(join(FIXTURES, assistant)).sort())
      it(name, () => {
        const { project, home, cases } = setUp(assistant, name);
        const run = (args: string[], input?: string) =>
          runCli(args, { cwd: project, home, ...(input ? { input } : {}) });
        const files = assistant === 'gemini-cli' ? ['policy.toml'] : [];
        const imported = run(['import', assistant, ...files, '--out', 'toolgate.yaml']);
        expect(imported.code, imported.stderr).toBe(0);
        // The imported policy lints without a rule that can never apply.
        const lint = run(['lint']);
        expect(lint.stdout + lint.stderr).not.toMatch(/never-applies|allow-inside-deny/);
        for (const c of cases) {
          if (c.notConverted !== undefined)
            expect(imported.stderr, c.rule).toContain(`not converted: ${c.notConverted} (`);
          if (!c.call || !c.expect) continue;
          const r = run(['check', '--call', JSON.stringify(c.call)]);
          expect({ rule: c.rule, code: r.code }, r.stdout + r.stderr).toEqual({
            rule: c.rule,
            code: EXIT[c.expect],
          });
          if (c.hook && assistant === 'claude-code') {
            const event = {
              session_id: 's1',
              transcript_path: join(project, 't.jsonl'),
              cwd: project,
              hook_event_name: 'PreToolUse',
              tool_name: c.call.tool,
              tool_input: c.call.args,
            };
            const h = run(['hook', 'claude-code'], JSON.stringify(event));
            const answer =
              h.stdout.trim() === ''
                ? 'defer'
                : (JSON.parse(h.stdout) as { hookSpecificOutput: { permissionDecision: string } })
                    .hookSpecificOutput.permissionDecision;
            expect({ rule: c.rule, hook: answer }, h.stderr).toEqual({ rule: c.rule, hook: c.hook });
          }
        }
      }, 300_000);
  });
