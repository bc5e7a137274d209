import type { Access, Finding, MatchedRule } from '@toolgate/core';
import type { EnvelopeRoots } from './evaluator.js';
import type { Evaluation, PolicyRule } from './types.js';

export const PLUGIN_NAME = 'folder-rules';

// One frozen record per policy rule, built on its first match: a rule is compiled once with its policy and
// never changes, so every decision that matches it shares the record (no object per match per call).
const matchedOf = new WeakMap<PolicyRule, MatchedRule>();

/** The audit record of a matched rule (frozen, shared by every decision it matches). */
export function matchedRule(rule: PolicyRule): MatchedRule {
  let m = matchedOf.get(rule);
  if (m === undefined) {
    m = Object.freeze({
      plugin: PLUGIN_NAME,
      pattern: rule.block ? `!${rule.pattern}` : rule.pattern,
      access: rule.block ? 'deny' : rule.access,
      source: rule.source,
      ...(rule.description !== undefined ? { description: rule.description } : {}),
    });
    matchedOf.set(rule, m);
  }
  return m;
}

/** Model-readable reason for a deny or prompt. */
export function reasonFor(ev: Evaluation, access: Access): string {
  const rule = ev.rule;
  if (!rule)
    return ev.decision === 'prompt'
      ? `${access.op} outside the allowlist needs approval`
      : 'path outside allowed scope';
  if (rule.block || rule.access === 'deny') return `path matches deny rule ${rule.pattern}`;
  if (rule.access === 'prompt') return `path matches prompt rule ${rule.pattern}: approval required`;
  if (rule.access === 'read') return `path is read-only under rule ${rule.pattern}`;
  return 'path outside allowed scope';
}

/** Who acts, for a subtree reason: the shell program (`shell:grep:argv` ⇒ `grep`), else the tool. */
function actor(access: Access, tool: string): string {
  if (access.origin.startsWith('shell:')) return access.origin.split(':')[1] || tool;
  return tool;
}

/**
 * The finding for a non-allowed evaluation. A subtree decided by an existing entry beneath it names that
 * entry (`grep would read /ws/.env: …`), and the envelope's path is that entry; a subtree judged by the worst
 * case says why (`SUBTREE_UNBOUNDED`).
 */
/**
 * A dialect's own words where its seed gives them: wolo's confirmation sentence (seed 002) and Folder
 * Guard's `validatePathInAllowedPaths` error (seed 000, Go's `%v` of a slice).
 */
function seedWording(dialect: string, ev: Evaluation, access: Access, allowed: string[]): string | undefined {
  if (dialect === 'wolo' && ev.decision === 'prompt' && !ev.rule && access.op !== 'read')
    return 'This path is not in the default allowlist (/tmp) or configured whitelist.';
  if (dialect === 'folderguard' && ev.decision === 'deny' && (!ev.rule || ev.rule.access === 'read'))
    return `path '${access.raw}' is not within any of the allowed paths: [${allowed.join(' ')}]`;
  return undefined;
}

export function findingFor(
  ev: Evaluation,
  access: Access,
  allowed: EnvelopeRoots,
  tool = 'the tool',
  dialect = '',
): Finding {
  const prompt = ev.decision === 'prompt';
  let reason = seedWording(dialect, ev, access, allowed.paths as string[]) ?? reasonFor(ev, access);
  let subject = access;
  if (ev.cause) {
    reason = `${actor(access, tool)} would ${access.op} ${ev.cause.path}: ${reason}`;
    // A deny is about that entry (the envelope names it). A prompt stays about the whole subtree: the human
    // approves everything the call touches, and a grant must cover the subtree, not the first entry found.
    if (!prompt) {
      const { hops: _hops, ...rest } = access;
      subject = { ...rest, scope: 'path', path: ev.cause.lexical ?? ev.cause.path, realPath: ev.cause.path };
    }
  } else if (ev.unbounded) {
    reason = `${actor(access, tool)} would ${access.op} everything beneath ${access.realPath ?? access.path}, and ${ev.unbounded}: ${reason}`;
  }
  return {
    action: prompt ? 'prompt' : 'deny',
    code: ev.unbounded ? 'SUBTREE_UNBOUNDED' : prompt ? 'PATH_PROMPT' : 'PATH_DENIED',
    reason,
    access: subject,
    ...(ev.rule ? { rule: matchedRule(ev.rule) } : {}),
    hint: prompt
      ? 'A human must approve this; wait for the answer or use a path under one of the allowed roots.'
      : 'Use a path under one of the allowed roots, or ask the user.',
    allowedPaths: allowed.paths as string[],
    ...(allowed.omitted > 0 ? { allowedPathsOmitted: allowed.omitted } : {}),
  };
}

/** `..` as a component, in either separator style (Folder Guard rejects `../` and `..\` outright). */
export function hasTraversal(raw: string): boolean {
  return /(^|[/\\])\.\.([/\\]|$)/.test(raw);
}
