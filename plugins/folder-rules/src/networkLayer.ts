import type { NetMethod, NetworkPolicy, NetworkRequest, NetworkSection } from '@toolgate/core';
import { compileHostPattern } from '@toolgate/core';
import { configError } from './configError.js';
import { tighter } from './levels.js';
import { probeHosts } from './networkProbes.js';

/**
 * An overlay's `network` over the base's, as path rules layer: a default it sets replaces, a non-empty rule
 * list (presets included) replaces; what it leaves out is inherited.
 */
export function layerNetwork(
  base: NetworkSection | undefined,
  overlay: NetworkSection | undefined,
): NetworkSection | undefined {
  if (!overlay) return base;
  if (!base) return overlay;
  return {
    ...((overlay.default ?? base.default) ? { default: overlay.default ?? base.default } : {}),
    rules: overlay.rules.length > 0 ? overlay.rules : base.rules,
  };
}

/** Requests worth probing: every rule's hosts, with and without each rule's ports and schemes. */
function probes(policies: readonly NetworkPolicy[]): NetworkRequest[] {
  const hosts = new Set<string>(['tg-probe-unmatched.invalid', '203.0.113.7', '2001:db8::7']);
  const ports = new Set<number | undefined>([undefined, 443, 80, 22]);
  const schemes = new Set<string | undefined>([undefined, 'https', 'http', 'ssh']);
  for (const p of policies)
    for (const r of p.rules) {
      const matchers = compileHostPattern(r.host);
      if (typeof matchers !== 'string') for (const m of matchers) for (const h of probeHosts(m)) hosts.add(h);
      for (const port of r.ports ?? []) ports.add(port);
      for (const s of r.schemes ?? []) schemes.add(s);
    }
  const out: NetworkRequest[] = [];
  for (const host of hosts)
    for (const method of ['read', 'write'] as NetMethod[])
      for (const port of ports)
        for (const scheme of schemes)
          out.push({ host, method, ...(port !== undefined ? { port } : {}), ...(scheme ? { scheme } : {}) });
  return out;
}

/**
 * Refuses a narrowOnly overlay whose network policy would decide some request more permissively than the
 * base's (probed on every host, port and scheme the two policies name). No base section: nothing to widen.
 */
export function assertNetworkNarrows(
  base: NetworkPolicy | undefined,
  layered: NetworkPolicy | undefined,
  overlayFile: string,
): void {
  if (!base || base.unrestricted) return;
  if (!layered)
    throw configError(
      overlayFile,
      'network',
      undefined,
      'overlay is narrowOnly but removes the network section',
    );
  for (const req of probes([base, layered])) {
    const b = base.decide(req);
    const l = layered.decide(req);
    if (b.action !== l.action && tighter(b.action, l.action) === b.action)
      throw configError(
        overlayFile,
        l.source?.split('#')[1] ?? 'network.default',
        l.rule,
        `overlay is narrowOnly but widens ${req.method} of ${req.host}${req.port ? `:${req.port}` : ''} from ${b.action} to ${l.action}`,
      );
  }
}
