import { compileNetworkRules } from '@toolgate/core';
import { defaultSpec, type PolicyDraft } from './draft.js';
import { varsIn } from './expandVars.js';
import { checkGlobCost } from './globCost.js';
import { stableHash } from './hash.js';
import type { CompiledPolicy } from './types.js';

/** Fills the model's defaults into a (layered) draft, and hashes the result. */
export function finalize(draft: PolicyDraft, sources: readonly string[]): CompiledPolicy {
  const rules = draft.rules ?? [];
  // Every dialect and inline rules end here: a glob too costly to expand or match fails the load, naming the rule.
  for (const rule of rules) checkGlobCost(rule);
  const vars = [...new Set(rules.flatMap((r) => varsIn(r.pattern)))];
  const body = {
    dialect: draft.dialect,
    mode: draft.mode ?? 'tiered',
    rules: rules.map((r) => ({ ...r })),
    default: draft.default ?? defaultSpec('deny'),
    ...(draft.defaults ? { defaults: draft.defaults } : {}),
    ...(draft.shell ? { shell: draft.shell } : {}),
    unknownTools: draft.unknownTools ?? 'deny',
    tools: draft.tools ?? {},
    rejectTraversal: draft.rejectTraversal ?? false,
    relativeTo: draft.relativeTo ?? 'cwd',
    disabled: draft.disabled ?? false,
    hideWriteTools: draft.hideWriteTools ?? false,
    ...(draft.gates ? { gates: draft.gates } : {}),
    tests: draft.tests ?? [],
    extras: { ...(draft.extras ?? {}), vars },
  };
  // The hash covers what decides, not where it was read from: the same policy moved to another file
  // hashes the same, and the audit log can tell two policies apart.
  const network = draft.network ? compileNetworkRules(draft.network) : undefined;
  const { tests: _tests, ...decisive } = body;
  // Only a policy with a network section hashes it: every policy without one keeps its hash.
  const hash = stableHash({
    ...decisive,
    rules: body.rules.map(({ source: _s, ...r }) => r),
    ...(network ? { network: network.hash } : {}),
  });
  return Object.freeze({
    ...body,
    ...(network ? { network } : {}),
    hash,
    sources: Object.freeze([...sources]),
  });
}
