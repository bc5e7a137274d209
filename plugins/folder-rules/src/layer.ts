import type { Op } from '@toolgate/core';
import { configError } from './configError.js';
import type { PolicyDraft } from './draft.js';
import { createEvaluator } from './evaluator.js';
import { finalize } from './finalize.js';
import { tighter } from './levels.js';
import { layerLimits, widenedLimit } from './limits.js';
import { assertNetworkNarrows, layerNetwork } from './networkLayer.js';
import { staticPrefix } from './patterns.js';
import type { CompiledPolicy, PolicyRule, Vector } from './types.js';

const TIER_ORDER = ['deny_paths', 'prompt_paths', 'read_paths', 'write_paths'];

/** Field by field: what the overlay sets replaces (a non-empty rule list replaces), the rest inherits. */
export function layerDrafts(base: PolicyDraft, overlay: PolicyDraft): PolicyDraft {
  const out: PolicyDraft = { ...base, source: overlay.source };
  const baseTiers = base.extras?.tiers as Record<string, PolicyRule[]> | undefined;
  const overTiers = overlay.extras?.tiers as Record<string, PolicyRule[]> | undefined;
  if (baseTiers && overTiers) {
    // OpenFang: each tier list is its own field.
    const tiers = { ...baseTiers, ...overTiers };
    out.rules = TIER_ORDER.flatMap((k) => tiers[k] ?? []);
    out.extras = { ...base.extras, ...overlay.extras, tiers };
  } else {
    if (overlay.rules && overlay.rules.length > 0) out.rules = overlay.rules;
    if (overlay.extras) out.extras = { ...base.extras, ...overlay.extras };
  }
  if (overlay.extras?.limits)
    out.extras = { ...out.extras, limits: layerLimits(base.extras, overlay.extras) };
  for (const key of [
    'mode',
    'default',
    'defaults',
    'unknownTools',
    'rejectTraversal',
    'relativeTo',
    'hideWriteTools',
    'disabled',
  ] as const) {
    if (overlay[key] !== undefined) (out as unknown as Record<string, unknown>)[key] = overlay[key];
  }
  if (overlay.gates) out.gates = { ...base.gates, ...overlay.gates };
  if (overlay.tools) out.tools = { ...base.tools, ...overlay.tools };
  // Field by field, so an overlay that adds shell tools keeps the base's metacharacter mode (and tools).
  if (overlay.shell)
    out.shell = {
      ...base.shell,
      ...overlay.shell,
      tools: { ...base.shell?.tools, ...overlay.shell.tools },
      notShell: [...(base.shell?.notShell ?? []), ...(overlay.shell.notShell ?? [])],
    };
  if (overlay.tests) out.tests = [...(base.tests ?? []), ...overlay.tests];
  const network = layerNetwork(base.network, overlay.network);
  if (network) out.network = network;
  delete out.narrowOnly;
  delete out.agents;
  return out;
}

const PROBE_CTX = { cwd: '/tg-probe-ws', workspace: '/tg-probe-ws', home: '/tg-probe-home', env: {} };

/** Paths worth probing: every rule's root, something beneath it, and a path no rule names. */
function probes(policies: CompiledPolicy[]): string[] {
  const ev = policies.map((p) => createEvaluator(p, PROBE_CTX));
  const out = new Set<string>(['/tg-probe-unmatched/x']);
  const concrete = (p: string) => p.replace(/\*\*?/g, 'x').replace(/[?[\]{}]/g, '');
  const roots = new Set<string>(['/tg-probe-ws', '/tg-probe-home']);
  const anywhere: string[] = [];
  for (const e of ev) {
    for (const patterns of e.expanded) {
      for (const p of patterns) {
        const root = staticPrefix(p);
        roots.add(root);
        out.add(root);
        out.add(`${root}/x`);
        out.add(concrete(p));
        if (p.startsWith('/**/')) anywhere.push(p.slice(3));
      }
    }
  }
  // `**/.ssh/**` bites inside every granted root: probe it there.
  for (const tail of anywhere)
    for (const root of roots) out.add(concrete(`${root === '/' ? '' : root}${tail}`));
  return [...out];
}

/**
 * Refuses an overlay marked narrowOnly when, for some path, operation and vector, the layered policy would
 * decide more permissively than the base. Checked on probe paths drawn from both policies' rules.
 */
export function assertNarrows(base: CompiledPolicy, layered: CompiledPolicy, overlayFile: string): void {
  // What is checked at all: a looser unknownTools, or a tool declaration (which replaces unknownTools' answer
  // for that tool, or changes what its arguments are), widens whatever the rules say. Adding shell tools
  // only sends more calls to the shell analysis.
  if (
    base.unknownTools !== layered.unknownTools &&
    tighter(base.unknownTools, layered.unknownTools) === base.unknownTools
  )
    throw configError(
      overlayFile,
      'unknownTools',
      layered.unknownTools,
      `overlay is narrowOnly but loosens unknownTools from ${base.unknownTools}`,
    );
  for (const [name, spec] of Object.entries(layered.tools))
    if (spec.op !== 'shell' && JSON.stringify(base.tools[name]) !== JSON.stringify(spec))
      throw configError(
        overlayFile,
        `tools.${name}`,
        spec.op,
        'overlay is narrowOnly but declares a tool: a declaration changes what its calls are checked for',
      );
  const eb = createEvaluator(base, PROBE_CTX);
  const el = createEvaluator(layered, PROBE_CTX);
  for (const path of probes([base, layered])) {
    for (const op of ['read', 'write'] as Op[]) {
      for (const vector of ['file', 'shell'] as Vector[]) {
        const access = {
          op,
          scope: 'path' as const,
          raw: path,
          path,
          realPath: path,
          origin: vector === 'shell' ? 'shell:probe' : 'folder-rules:probe',
          certain: true,
        };
        const b = eb.evaluate(access);
        const l = el.evaluate(access);
        if (tighter(b.decision, l.decision) === b.decision && b.decision !== l.decision) {
          const field = l.rule?.source?.split('#')[1] ?? 'default';
          throw configError(
            overlayFile,
            field,
            l.rule?.pattern ?? `${op}: ${l.decision}`,
            `overlay is narrowOnly but widens ${op} of ${path.replace('/tg-probe-ws', '<workspace>').replace('/tg-probe-home', '~')} from ${b.decision} to ${l.decision}`,
          );
        }
      }
    }
  }
}

export function finalizeLayered(
  base: PolicyDraft,
  overlays: PolicyDraft[],
  sources: string[],
): CompiledPolicy {
  let current = base;
  let compiled = finalize(current, sources.slice(0, 1));
  overlays.forEach((overlay, i) => {
    current = layerDrafts(current, overlay);
    const next = finalize(current, sources.slice(0, i + 2));
    if (overlay.narrowOnly) assertNarrows(compiled, next, overlay.source);
    if (overlay.narrowOnly) assertNetworkNarrows(compiled.network, next.network, overlay.source);
    // The OS sandbox switch (@toolgate/sandbox) lets calls run that `off` denies, and `always` confines
    // calls `uncertain` runs as they are: a narrowing overlay may turn it off, or from uncertain to always.
    const [was, now] = [compiled.extras.sandbox ?? 'off', next.extras.sandbox ?? 'off'];
    if (overlay.narrowOnly && now !== was && now !== 'off' && !(was === 'uncertain' && now === 'always'))
      throw configError(overlay.source, 'sandbox', now, `a narrowOnly overlay cannot widen sandbox: ${was}`);
    // `uncertain: prompt` lets a human allow what `deny` refuses.
    if (overlay.narrowOnly && next.extras.uncertain === 'prompt' && compiled.extras.uncertain !== 'prompt')
      throw configError(
        overlay.source,
        'uncertain',
        'prompt',
        'a narrowOnly overlay cannot widen uncertain: deny',
      );
    const widened = overlay.narrowOnly ? widenedLimit(compiled.extras.limits, next.extras.limits) : undefined;
    if (widened) throw configError(overlay.source, `limits.${widened.field}`, widened.value, widened.why);
    compiled = next;
  });
  return compiled;
}
