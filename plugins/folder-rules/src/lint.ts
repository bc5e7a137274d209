import { type CallContext, createGuard, type GuardPlugin } from '@toolgate/core';
import { folderRules } from './folderRules.js';
import { LEVEL } from './levels.js';
import { misanchoredBlocks } from './misanchoredBlocks.js';
import { networkTestOutcome, shadowedNetworkRules } from './networkLint.js';
import { compilePattern, expandPattern } from './patterns.js';
import { subsumes } from './subsumes.js';
import type { CompiledPolicy, PolicyRule } from './types.js';

export interface LintFinding {
  level: 'error' | 'warning';
  code: string;
  message: string;
  source: string;
}

export interface LintResult {
  /** No errors (warnings allowed). */
  valid: boolean;
  errors: LintFinding[];
  warnings: LintFinding[];
  tests: { passed: number; failed: number };
}

export interface LintOptions {
  /** Context the policy's own tests run in (default: a scratch one under `/tmp`). */
  ctx?: CallContext;
  /** Plugins composed with folder-rules for the tests (the CLI adds the shell plugin). */
  plugins?: readonly GuardPlugin[];
}

const PROBE = { cwd: '/tg-lint-ws', workspace: '/tg-lint-ws', home: '/tg-lint-home', env: {} };

function unbalanced(pattern: string): string | undefined {
  let square = 0;
  let curly = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '[') square++;
    else if (c === ']' && square > 0) square--;
    else if (c === '{') curly++;
    else if (c === '}' && curly > 0) curly--;
  }
  return square > 0 ? '[' : curly > 0 ? '{' : undefined;
}

function label(r: PolicyRule): string {
  const scope = [r.ops ? `ops: ${r.ops.join(', ')}` : '', r.vector ? `vector: ${r.vector}` : '']
    .filter(Boolean)
    .join('; ');
  return `${r.block ? '!' : ''}${r.pattern} (${r.block ? 'block' : r.access}${scope ? `; ${scope}` : ''})`;
}

/** Whether `e` applies to every access `r` applies to: its vector and operations are no narrower. */
function appliesWherever(e: PolicyRule, r: PolicyRule): boolean {
  if (e.vector !== undefined && e.vector !== r.vector) return false;
  if (e.ops === undefined) return true;
  // A rule without `ops` applies to reads and writes (a read tier to writes too: it denies them).
  const rOps = r.ops ?? ['read', 'write'];
  return rOps.every((op) => e.ops?.includes(op));
}

/**
 * Checks a policy the way seed 001's `validateFolderConfig` meant to, properly: invalid globs, rules
 * shadowed by an earlier rule (real subsumption, not string heuristics), deny rules that can never win,
 * rules a more restrictive tier always out-ranks (tiered: `<workspace>/out/** write` under `<workspace>/** read`),
 * relative patterns, `!` rules whose flags say allow, patterns that can never match an absolute path,
 * allow rules swallowed by deny rules, and the policy's own `tests`. Async because it runs the tests.
 *
 * @example
 * ```ts
 * import { lint, loadPolicy } from '@toolgate/folder-rules';
 * const result = await lint(loadPolicy({ dialect: 'wunderland', file: 'agent.config.json' }));
 * for (const e of result.errors) console.error(e.source, e.message);
 * ```
 */
export async function lint(policy: CompiledPolicy, options: LintOptions = {}): Promise<LintResult> {
  const errors: LintFinding[] = [];
  const warnings: LintFinding[] = [];
  const add = (level: LintFinding['level'], code: string, message: string, source: string) =>
    (level === 'error' ? errors : warnings).push({ level, code, message, source });
  const expanded: (string | undefined)[] = policy.rules.map((r) => {
    // minimatch reads an unclosed `[` or `{` as a literal character: almost never what the author meant.
    const unclosed = unbalanced(r.pattern);
    if (unclosed) {
      add('error', 'invalid-glob', `pattern ${r.pattern} has an unclosed "${unclosed}"`, r.source);
      return undefined;
    }
    try {
      void compilePattern(r, PROBE).matchers; // matchers compile on first use
      return expandPattern(r, PROBE);
    } catch (error) {
      add('error', 'invalid-glob', (error as Error).message, r.source);
      return undefined;
    }
  });
  policy.rules.forEach((r, i) => {
    const p = r.pattern;
    if (p.includes('\\') || /^[A-Za-z]:/.test(p))
      add(
        'error',
        'never-matches',
        `pattern ${p} uses Windows separators and can never match an absolute POSIX path`,
        r.source,
      );
    else if (!/^(\/|~|<workspace>|\*\*|\$)/.test(p))
      add(
        'warning',
        'relative-pattern',
        `pattern ${p} is relative: it is anchored at the workspace`,
        r.source,
      );
    if (/(^|\/)\.\.(\/|$)/.test(p))
      add(
        'error',
        'never-matches',
        `pattern ${p} contains ".." and can never match a normalised path`,
        r.source,
      );
    if (r.description?.includes('(write without read: denied)'))
      add(
        'warning',
        'write-without-read',
        `rule ${p} has read: false, write: true: there is no write-only access, so it denies both`,
        r.source,
      );
    if (r.description?.includes('flags say allow'))
      add(
        'warning',
        'block-says-allow',
        `"!" rule ${p} has read/write flags set to true: "!" makes it a block`,
        r.source,
      );
    const ei = expanded[i];
    if (ei === undefined) return;
    for (let j = 0; j < i; j++) {
      const e = policy.rules[j];
      const ej = expanded[j];
      if (!e || ej === undefined || !appliesWherever(e, r)) continue;
      const restrictive = e.access === 'deny' || e.access === 'prompt' || e.block === true;
      if (!subsumes(ej, ei, restrictive)) continue;
      if (policy.mode === 'first-match' && !e.block && !r.block) {
        const denyLost = r.access === 'deny' || r.access === 'prompt';
        add(
          denyLost ? 'error' : 'warning',
          denyLost ? 'deny-never-wins' : 'shadowed',
          `${label(r)} can never match: ${label(e)} earlier matches every path it does (first match wins)`,
          r.source,
        );
      } else if (policy.mode === 'tiered' && e.access === r.access) {
        add(
          'warning',
          'redundant',
          `${label(r)} is redundant: ${label(e)} already covers it in the same tier`,
          r.source,
        );
      }
    }
    // Tiered: a rule under a broader rule of a more restrictive tier (prompt over an allow, read over a
    // write) never decides anything — `<workspace>/** read` makes `<workspace>/out/** write` dead (issue 25).
    if (policy.mode === 'tiered' && !r.block && (r.access === 'write' || r.access === 'read')) {
      policy.rules.forEach((e, k) => {
        const ek = expanded[k];
        if (k === i || ek === undefined || e.block || e.access === 'deny') return;
        if (LEVEL[e.access] >= LEVEL[r.access] || !appliesWherever(e, r)) return;
        if (!subsumes(ek, ei, e.access === 'prompt')) return;
        const effect =
          e.access === 'prompt' ? 'every access there needs approval' : 'a write there is denied (read only)';
        add(
          'warning',
          'never-applies',
          `${label(r)} can never apply (tiered): ${label(e)} matches every path it does and its tier wins — ${effect}`,
          r.source,
        );
      });
    }
    // Allow rules inside a deny rule: in tiered the deny always wins, so the allow can never allow.
    if (r.access === 'read' || r.access === 'write') {
      policy.rules.forEach((d, k) => {
        const ed = expanded[k];
        if (k === i || ed === undefined || !(d.access === 'deny' || d.block)) return;
        if (!appliesWherever(d, r)) return;
        if (subsumes(ed, ei, true) && (policy.mode === 'tiered' || d.block || k < i))
          add(
            'warning',
            'allow-inside-deny',
            `${label(r)} lies entirely inside deny rule ${label(d)}: it never allows anything`,
            r.source,
          );
      });
    }
  });
  for (const m of misanchoredBlocks(policy.rules, expanded))
    add('warning', 'deny-outside-allowed-root', m.message, m.source);
  if (policy.network)
    for (const s of shadowedNetworkRules(policy.network))
      add(
        'warning',
        'network-rule-shadowed',
        `network rule ${s.rule.text} never applies: ${s.by.text} (${s.by.source}) decides every host it matches`,
        s.rule.source,
      );
  const tests = await runTests(policy, options, add);
  return { valid: errors.length === 0, errors, warnings, tests };
}

async function runTests(
  policy: CompiledPolicy,
  options: LintOptions,
  add: (level: LintFinding['level'], code: string, message: string, source: string) => void,
): Promise<{ passed: number; failed: number }> {
  if (policy.tests.length === 0) return { passed: 0, failed: 0 };
  const ctx: CallContext = options.ctx ?? {
    sessionId: 'lint',
    agentId: 'lint',
    cwd: '/tmp/toolgate-lint-workspace',
    workspace: '/tmp/toolgate-lint-workspace',
    home: '/tmp/toolgate-lint-home',
    env: {},
  };
  const guard = createGuard({ plugins: [...(options.plugins ?? []), folderRules({ policy })] });
  let passed = 0;
  let failed = 0;
  for (const t of policy.tests) {
    if (t.host !== undefined) {
      const r = networkTestOutcome(policy.network, t);
      if (r.outcome === t.expect) passed++;
      else {
        failed++;
        add(
          'error',
          'test-failed',
          `expected ${t.expect} for ${t.method ?? 'read'} of ${t.host}, got ${r.outcome} (${r.why})`,
          t.source,
        );
      }
      continue;
    }
    const tool = t.op === 'write' ? 'write_file' : t.op === 'list' ? 'list_directory' : 'read_file';
    const call = t.call ?? { tool, args: { path: t.path } };
    const d = await guard.check(call, ctx, { resolvePrompts: false });
    if (d.action === t.expect) passed++;
    else {
      failed++;
      add(
        'error',
        'test-failed',
        `expected ${t.expect} for ${JSON.stringify(call)}, got ${d.action}${d.reasons[0] ? ` (${d.reasons[0].reason})` : ''}`,
        t.source,
      );
    }
  }
  return { passed, failed };
}
