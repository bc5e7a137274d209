import {
  type Access,
  type CallContext,
  createGuard,
  type Decision,
  type Guard,
  type SymlinkHop,
  type ToolCall,
} from '@toolgate/core';
import { evaluatorFor } from './evaluator.js';
import { type ExplainedReach, explainReaches, reachLine, reachVerdict } from './explainReach.js';
import { folderRules } from './folderRules.js';
import type { CompiledPolicy, Outcome, RuleAccess } from './types.js';

export interface ExplainedRule {
  pattern: string;
  expanded: readonly string[];
  access: RuleAccess | 'block';
  source: string;
  description?: string;
  matched: boolean;
  how?: 'path' | 'lexical' | 'beneath';
}

export interface ExplainedAccess {
  op: Access['op'];
  scope: Access['scope'];
  origin: string;
  raw: string;
  /** Absolute and lexically normalised. */
  path: string;
  /** Where the operation lands, symlinks followed (`null`: uncertain). */
  realPath: string | null;
  hops: readonly SymlinkHop[];
  certain: boolean;
  reason?: string;
  decision: Outcome;
  why: string;
  /** Subtree accesses: the existing entry beneath the root that decided (`/ws/src/.env`). */
  cause?: string;
  /** Subtree accesses judged by the worst case: why the walk could not answer. */
  unbounded?: string;
  decidedBy?: { pattern: string; access: string; source: string };
  rules: ExplainedRule[];
  /** Rules never tested: their static prefix is not an ancestor of the path (or of anything beneath it). */
  notCandidates: number;
}

export interface ExplainResult {
  decision: Decision['action'];
  call: ToolCall;
  reasons: Decision['reasons'];
  policy: {
    dialect: string;
    hash: string;
    mode: string;
    sources: readonly string[];
    default: CompiledPolicy['default'];
  };
  accesses: ExplainedAccess[];
  /** Hosts the call reaches, each with the network rule that decided (issue 26). */
  network: ExplainedReach[];
  decisionRecord: Decision;
}

/** A guard and the policy it judges with (what `buildGuard` returns), or a bare policy. */
export type ExplainTarget = CompiledPolicy | { guard: Guard; policy: CompiledPolicy };

/**
 * The full trace of one call: the decision, every access and how it was resolved, every rule considered
 * (with its expansion and the file and field it came from), which matched, and why the decision is what it is.
 *
 * @example
 * ```ts
 * import { explain, formatExplain, loadPolicy } from '@toolgate/folder-rules';
 * const policy = loadPolicy({ dialect: 'hermes', file: 'config.yaml' });
 * console.log(formatExplain(await explain(policy, { tool: 'read_file', args: { path: '~/.ssh/id_rsa' } }, ctx)));
 * ```
 */
export async function explain(
  target: ExplainTarget,
  call: ToolCall,
  ctx: CallContext,
): Promise<ExplainResult> {
  const { guard, policy } =
    'guard' in target
      ? target
      : { guard: createGuard({ plugins: [folderRules({ policy: target })] }), policy: target };
  const decision = await guard.check(call, ctx, { resolvePrompts: false });
  const ev = evaluatorFor(policy, ctx);
  const accesses = decision.accesses.map((access): ExplainedAccess => {
    const result = ev.evaluate(access, { trace: true });
    const seen = new Map<string, ExplainedRule>();
    for (const entry of result.trace) {
      const index = policy.rules.indexOf(entry.rule);
      const key = `${index}`;
      const prev = seen.get(key);
      if (prev?.matched) continue;
      seen.set(key, {
        pattern: entry.rule.block ? `!${entry.rule.pattern}` : entry.rule.pattern,
        expanded: ev.expanded[index] ?? [],
        access: entry.rule.block ? 'block' : entry.rule.access,
        source: entry.rule.source,
        ...(entry.rule.description !== undefined ? { description: entry.rule.description } : {}),
        matched: entry.matched,
        ...(entry.how ? { how: entry.how } : {}),
      });
    }
    return {
      op: access.op,
      scope: access.scope,
      origin: access.origin,
      raw: access.raw,
      path: access.path,
      realPath: access.realPath,
      hops: access.hops ?? [],
      certain: access.certain,
      ...(access.reason !== undefined ? { reason: access.reason } : {}),
      decision: result.decision,
      why: result.why,
      ...(result.cause ? { cause: result.cause.path } : {}),
      ...(result.unbounded ? { unbounded: result.unbounded } : {}),
      ...(result.rule
        ? {
            decidedBy: {
              pattern: result.rule.pattern,
              access: result.rule.block ? 'block' : result.rule.access,
              source: result.rule.source,
            },
          }
        : {}),
      rules: [...seen.values()],
      notCandidates: policy.rules.length - seen.size,
    };
  });
  return {
    decision: decision.action,
    call,
    reasons: decision.reasons,
    policy: {
      dialect: policy.dialect,
      hash: policy.hash,
      mode: policy.mode,
      sources: policy.sources,
      default: policy.default,
    },
    accesses,
    network: explainReaches(policy, decision.network ?? []),
    decisionRecord: decision,
  };
}

/** The human-readable trace `toolgate explain` prints. */
export function formatExplain(r: ExplainResult): string {
  const lines: string[] = [];
  const sandboxed = r.decisionRecord.sandboxed;
  lines.push(`decision: ${r.decision.toUpperCase()}${sandboxed ? ' (sandboxed)' : ''}  (${r.call.tool})`);
  if (sandboxed) {
    // Issue 22: what analysis could not prove runs confined; say so and why, before the trace.
    lines.push('  would run in the sandbox compiled from the policy, because:');
    for (const f of sandboxed.uncertain) lines.push(`    - ${f.reason}`);
    if (sandboxed.mode === 'always')
      lines.push('    - the policy sandboxes every shell call (sandbox: always)');
  }
  for (const reason of r.reasons)
    lines.push(`  ${reason.action} ${reason.code} [${reason.plugin ?? '?'}]: ${reason.reason}`);
  lines.push(
    `policy: ${r.policy.dialect} ${r.policy.mode}, default read=${r.policy.default.read} write=${r.policy.default.write}, sha256 ${r.policy.hash.slice(0, 16)}…`,
  );
  for (const s of r.policy.sources) lines.push(`  from ${s}`);
  if (r.accesses.length === 0) lines.push('accesses: none (the call touches no path)');
  r.accesses.forEach((a, i) => {
    lines.push(
      `access ${i + 1}: ${a.op} ${a.scope === 'subtree' ? '(subtree) ' : ''}${JSON.stringify(a.raw)}  via ${a.origin}`,
    );
    lines.push(`  lexical: ${a.path}`);
    lines.push(`  real:    ${a.realPath ?? `(uncertain: ${a.reason ?? 'unknown'})`}`);
    if (a.cause) lines.push(`  decided by existing entry: ${a.cause}`);
    if (a.unbounded) lines.push(`  not walked: ${a.unbounded} (worst case)`);
    for (const h of a.hops) lines.push(`  symlink: ${h.link} -> ${h.target}`);
    for (const rule of a.rules) {
      const mark = rule.matched ? (rule.how === 'beneath' ? '~' : '✓') : '·';
      const exp =
        rule.expanded.length > 0 && rule.expanded[0] !== rule.pattern
          ? ` = ${rule.expanded.join(' | ')}`
          : '';
      lines.push(`  ${mark} ${rule.access.padEnd(6)} ${rule.pattern}${exp}   (${rule.source})`);
    }
    if (a.notCandidates > 0)
      lines.push(
        `  (${a.notCandidates} other rule(s) not considered: their static prefix cannot contain this path)`,
      );
    lines.push(`  => ${a.decision}: ${a.why}`);
  });
  r.network.forEach((n, i) => {
    lines.push(`reach ${i + 1}: ${reachLine(n)}`);
    lines.push(`  => ${reachVerdict(n)}`);
  });
  return lines.join('\n');
}
