/**
 * Records every decision the shell analysis makes on the project's corpora, so that a refactoring can show
 * it changed none (issue 24): each line of plugins/shell/test/fixtures/*.jsonl through `extractAccesses`
 * (every access with all its fields, `uncertain`, metacharacters, unknown commands) and each case of the
 * usability corpus (test/usability/corpus/*.tsv) in workspaces A and B through the usability guard (the
 * action, the classification, every reason with its access, every access).
 *
 * Timing must not decide: both run with a budget no analysis reaches (the tests and the usability run use the
 * default 50 ms, which a slow machine can exceed on a large workspace: `pnpm -r build`), and this process's
 * pid (`/proc/self` → `/proc/<pid>`), the usability workspaces' temporary folder and this checkout's folder
 * (a policy file's path in a reason) are written as `<pid>`, `<root>` and `<repo>`.
 *
 * One entry per line of the output, keyed and sorted, so two snapshots diff line by line:
 *
 * ```sh
 * node --conditions=source --import tsx scripts/decision-snapshot.ts /tmp/snap-before.json
 * node --conditions=source --import tsx scripts/decision-snapshot.ts --diff /tmp/snap-before.json /tmp/snap-after.json
 * ```
 * `--diff` prints every key whose entry differs (or exists on one side only) and exits 1 if there is one.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Access, createGuard, type Decision } from '../packages/core/src/index.js';
import { folderRules, loadPolicy } from '../plugins/folder-rules/src/index.js';
import { extractAccesses, shell } from '../plugins/shell/src/index.js';
import { FIXTURE_ENV, fakeContext, formatAccess } from '../plugins/shell/test/helpers.js';
import { buildWorkspaces } from '../test/usability/buildWorkspaces.js';
import { classify } from '../test/usability/classify.js';
import { loadCorpus } from '../test/usability/corpus.js';

type Snapshot = Record<string, unknown>;

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURES = join(ROOT, 'plugins', 'shell', 'test', 'fixtures');
// The policy createUsabilityGuard loads (not imported from there: that module also loads the sandbox).
const POLICY_FILE = join(ROOT, 'test', 'usability', 'policy.yaml');
const BUDGET_MS = 60_000;

/** This process's pid, as `/proc/self` resolves, written `<pid>`; this checkout's folder `<repo>`. */
function withoutPid(s: string): string {
  return s
    .split(ROOT)
    .join('<repo>')
    .split(`/proc/${process.pid}/`)
    .join('/proc/<pid>/')
    .split(`"target":"${process.pid}"`)
    .join('"target":"<pid>"');
}

/** A value with its object keys sorted, so that JSON text is the same whatever order fields were set in. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = canonical(v);
    }
    return out;
  }
  return value;
}

/** Accesses in a stable order: by their canonical JSON text. */
function sortedAccesses(accesses: readonly Access[], rewrite: (s: string) => string = withoutPid): unknown[] {
  return accesses
    .map((a) => rewrite(JSON.stringify(canonical(a))))
    .sort()
    .map((text) => JSON.parse(text) as unknown);
}

function fixtureEntries(out: Snapshot): void {
  const ctx = fakeContext(FIXTURE_ENV);
  for (const file of readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()) {
    readFileSync(join(FIXTURES, file), 'utf8')
      .split('\n')
      .forEach((text, k) => {
        if (text.trim() === '') return;
        const { cmd } = JSON.parse(text) as { cmd: string };
        const r = extractAccesses(cmd, ctx, { budget: BUDGET_MS });
        const entry = {
          formatted: [...new Set(r.accesses.map(formatAccess))].sort(),
          uncertain: r.uncertain,
          metacharacters: [...r.metacharacters].sort(),
          unknownCommands: [...r.unknownCommands].sort(),
          accesses: sortedAccesses(r.accesses),
        };
        out[`fixture ${file}:${k + 1} ${JSON.stringify(cmd)}`] = JSON.parse(
          withoutPid(JSON.stringify(entry)),
        ) as unknown;
      });
  }
}

async function usabilityEntries(out: Snapshot): Promise<void> {
  const workspaces = buildWorkspaces();
  // The workspaces live in a fresh temporary folder: its name must not show in the snapshot.
  const rewrite = (s: string): string => withoutPid(s.split(workspaces.root).join('<root>'));
  try {
    // createUsabilityGuard's composition, with the budget above.
    const policy = loadPolicy({ dialect: 'toolgate', file: POLICY_FILE });
    const guard = createGuard({ plugins: [shell({ budget: BUDGET_MS }), folderRules({ policy })] });
    for (const c of loadCorpus()) {
      for (const ws of ['A', 'B'] as const) {
        const d: Decision = await guard.check(
          { tool: 'Bash', args: { command: c.command } },
          workspaces.contexts[ws],
        );
        const entry = {
          action: d.action,
          verdict: d.verdict,
          got: classify(d),
          reasons: d.reasons.map((r) => ({
            action: r.action,
            code: r.code,
            plugin: r.plugin,
            reason: r.reason,
            access: r.access ? formatAccess(r.access) : undefined,
            origin: r.access?.origin,
          })),
          accesses: sortedAccesses(d.accesses, rewrite),
        };
        out[`usability ${c.where} ${ws} ${JSON.stringify(c.command)}`] = JSON.parse(
          rewrite(JSON.stringify(canonical(entry))),
        ) as unknown;
      }
    }
  } finally {
    workspaces.dispose();
  }
}

/** One `"key": value` per line, keys sorted: the file diffs line by line. */
function write(file: string, snap: Snapshot): void {
  const lines = Object.keys(snap)
    .sort()
    .map((key) => `${JSON.stringify(key)}: ${JSON.stringify(snap[key])}`);
  writeFileSync(file, `{\n${lines.join(',\n')}\n}\n`);
}

function diff(a: string, b: string): number {
  const left = JSON.parse(readFileSync(a, 'utf8')) as Snapshot;
  const right = JSON.parse(readFileSync(b, 'utf8')) as Snapshot;
  let differing = 0;
  for (const key of [...new Set([...Object.keys(left), ...Object.keys(right)])].sort()) {
    const l = key in left ? JSON.stringify(left[key]) : undefined;
    const r = key in right ? JSON.stringify(right[key]) : undefined;
    if (l === r) continue;
    differing++;
    console.log(`${key}\n  - ${l ?? '(absent)'}\n  + ${r ?? '(absent)'}`);
  }
  const total = new Set([...Object.keys(left), ...Object.keys(right)]).size;
  console.log(`${differing} of ${total} entries differ`);
  return differing === 0 ? 0 : 1;
}

const args = process.argv.slice(2);
if (args[0] === '--diff') {
  const [, a, b] = args;
  if (!a || !b) throw new Error('usage: decision-snapshot.ts --diff A.json B.json');
  process.exitCode = diff(a, b);
} else {
  const [file] = args;
  if (!file) throw new Error('usage: decision-snapshot.ts OUT.json | --diff A.json B.json');
  const snap: Snapshot = {};
  fixtureEntries(snap);
  await usabilityEntries(snap);
  write(file, snap);
  const fixtures = Object.keys(snap).filter((k) => k.startsWith('fixture ')).length;
  console.log(`${file}: ${fixtures} fixture lines, ${Object.keys(snap).length - fixtures} usability checks`);
}
