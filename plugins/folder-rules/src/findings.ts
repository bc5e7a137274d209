import type { Access, Finding, MatchedRule } from '@toolgate/core';
import type { Evaluation, PolicyRule } from './types.js';

export const PLUGIN_NAME = 'folder-rules';

export function matchedRule(rule: PolicyRule): MatchedRule {
  return {
    plugin: PLUGIN_NAME,
    pattern: rule.block ? `!${rule.pattern}` : rule.pattern,
    access: rule.block ? 'deny' : rule.access,
    source: rule.source,
    ...(rule.description !== undefined ? { description: rule.description } : {}),
  };
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

export function findingFor(ev: Evaluation, access: Access, allowedPaths: string[]): Finding {
  const prompt = ev.decision === 'prompt';
  return {
    action: prompt ? 'prompt' : 'deny',
    code: prompt ? 'PATH_PROMPT' : 'PATH_DENIED',
    reason: reasonFor(ev, access),
    access,
    ...(ev.rule ? { rule: matchedRule(ev.rule) } : {}),
    hint: prompt
      ? 'A human must approve this; wait for the answer or use a path under one of the allowed roots.'
      : 'Use a path under one of the allowed roots, or ask the user.',
    allowedPaths,
  };
}

/** `..` as a component, in either separator style (Folder Guard rejects `../` and `..\` outright). */
export function hasTraversal(raw: string): boolean {
  return /(^|[/\\])\.\.([/\\]|$)/.test(raw);
}
