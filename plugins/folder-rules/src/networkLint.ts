import {
  compileHostPattern,
  type NetMethod,
  type NetworkPolicy,
  type NetworkRule,
  parseTarget,
} from '@toolgate/core';
import { probeHosts } from './networkProbes.js';
import type { Outcome, PolicyTest } from './types.js';

/** A network rule that never decides anything: another rule decides wherever it matches. */
export interface ShadowedNetworkRule {
  rule: NetworkRule;
  /** The rule that decided the probes instead (the first one met). */
  by: NetworkRule;
}

/**
 * Network rules that can never apply: probed on the hosts each one names (its first, last and a deeper
 * name or address), its methods, ports and schemes, another rule always decides — a duplicate, an allow
 * under an equally specific deny (`*.x.com` allow beside `.x.com` deny), a preset host restated.
 */
export function shadowedNetworkRules(net: NetworkPolicy): ShadowedNetworkRule[] {
  const out: ShadowedNetworkRule[] = [];
  for (const rule of net.rules) {
    const matchers = compileHostPattern(rule.host);
    if (typeof matchers === 'string') continue;
    const methods: NetMethod[] = rule.method ? [rule.method] : ['read', 'write'];
    const ports: (number | undefined)[] = rule.ports ? [...rule.ports] : [443, undefined];
    const schemes: (string | undefined)[] = rule.schemes ? [...rule.schemes] : ['https', undefined];
    let by: NetworkRule | undefined;
    let decides = false;
    for (const m of matchers)
      for (const host of probeHosts(m))
        for (const method of methods)
          for (const port of ports)
            for (const scheme of schemes) {
              if (decides) break;
              const e = net.explain({
                host,
                method,
                ...(port !== undefined ? { port } : {}),
                ...(scheme !== undefined ? { scheme } : {}),
              });
              if (e.rule === rule) decides = true;
              else if (e.rule && !by) by = e.rule;
            }
    if (!decides && by) out.push({ rule, by });
  }
  return out;
}

/**
 * A network test (`{host, method?, expect}`): what the policy's `network` section decides for that host
 * or URL. Without a restricting section every host is allowed; a host that cannot be parsed is denied.
 */
export function networkTestOutcome(
  net: NetworkPolicy | undefined,
  test: PolicyTest,
): { outcome: Outcome; why: string } {
  const method = test.method ?? 'read';
  if (!net || net.unrestricted) return { outcome: 'allow', why: 'the network is not restricted' };
  const t = parseTarget(test.host as string);
  if (t.host === null) return { outcome: 'deny', why: t.reason ?? 'no host' };
  const v = net.decide({
    host: t.host,
    method,
    ...(t.port !== undefined ? { port: t.port } : {}),
    ...(t.scheme !== undefined ? { scheme: t.scheme } : {}),
  });
  return { outcome: v.action, why: `${v.rule}${v.source ? ` (${v.source})` : ''}` };
}
