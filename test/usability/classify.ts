import type { Decision } from '@toolgate/core';

/** toolgate's answer, as the corpus counts it. */
export type Got = 'allow' | 'deny' | 'uncertain' | 'prompt' | 'error';

// Codes that say "could not be known", not "a rule forbids it": a deny carrying one of them is uncertain.
const UNCERTAIN_CODES: ReadonlySet<string> = new Set([
  'PATH_UNCERTAIN',
  'SHELL_UNCERTAIN',
  'SHELL_BUDGET',
  'SUBTREE_UNBOUNDED',
  'SHELL_METACHARACTER',
  'NETWORK_UNCERTAIN',
]);

/** Sorts a decision into allow, a certain deny, a deny because uncertain, prompt, or a plugin error. */
export function classify(d: Decision): Got {
  if (d.action === 'allow') return 'allow';
  if (d.action === 'prompt') return 'prompt';
  const code = d.reasons[0]?.code ?? '';
  if (code === 'PLUGIN_ERROR') return 'error';
  return UNCERTAIN_CODES.has(code) ? 'uncertain' : 'deny';
}

/** The deciding reason in one line: `CODE: reason`. */
export function firstReason(d: Decision): string {
  const r = d.reasons[0];
  return r ? `${r.code}: ${r.reason}` : '';
}

/**
 * What decided, for grouping mismatches: the code, the kind of access (`read*` = a subtree read) and the
 * program that made it (`shell:git`), e.g. `PATH_DENIED read* shell:git`. Empty for an allow.
 */
export function decidingAccess(d: Decision): string {
  const r = d.reasons[0];
  if (!r) return '';
  const a = r.access;
  if (!a) return r.code;
  const program = a.origin.split(':').slice(0, 2).join(':');
  return `${r.code} ${a.op}${a.scope === 'subtree' ? '*' : ''} ${program}`;
}
