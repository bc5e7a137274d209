import type { CompiledNetworkPolicy } from '@toolgate/core';

/**
 * How a sandbox reaches the network (issue 26):
 * - `shared`: the host's network (`--share-net`) — no `network` section, or one that restricts nothing.
 * - `none`: a network namespace of its own with only its own loopback (`--unshare-net`) — every host denied.
 * - `proxy`: `none` plus the filtering proxy outside the sandbox, bridged in on 127.0.0.1 (./bridge.ts), for an
 *   allowlist, prompt rules, or an `allow` default with exceptions.
 */
export type NetworkMode = 'shared' | 'none' | 'proxy';

/** A policy that also lists its rules (core's `NetworkPolicy`): the mode can then tell "nothing allowed". */
interface WithRules {
  readonly rules?: readonly { action: string }[];
}

/** The mode a compiled network policy needs; `undefined` (no section) is today's `shared`. */
export function networkModeOf(network: CompiledNetworkPolicy | undefined): NetworkMode {
  if (network === undefined || network.unrestricted) return 'shared';
  if (network.defaultAction !== 'deny') return 'proxy';
  const rules = (network as CompiledNetworkPolicy & WithRules).rules;
  // Without the rule list a prompt rule cannot be seen: the proxy (it judges every connection anyway).
  if (rules === undefined) return 'proxy';
  return rules.some((r) => r.action !== 'deny') ? 'proxy' : 'none';
}
