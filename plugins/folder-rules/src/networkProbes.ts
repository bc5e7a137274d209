import type { HostMatcher } from '@toolgate/core';

function dotted(x: number): string {
  return [x >>> 24, (x >>> 16) & 255, (x >>> 8) & 255, x & 255].join('.');
}

function v6(groups: readonly number[]): string {
  return groups.map((g) => g.toString(16)).join(':');
}

/**
 * Hosts a matcher covers and hosts beside it, to probe two network policies with (narrowOnly overlays) or
 * to find a rule that never decides (lint): `*.example.com` gives `example.com`, `tg-probe.example.com` and
 * a deeper name; a range gives its first, second and last address and the one after it.
 */
export function probeHosts(m: HostMatcher): string[] {
  switch (m.kind) {
    case 'any':
      return ['tg-probe-unmatched.invalid'];
    case 'name':
      return [m.name, `tg-probe.${m.name}`];
    case 'suffix':
      return [m.suffix, `tg-probe.${m.suffix}`, `a.tg-probe.${m.suffix}`];
    case 'v4': {
      const size = 2 ** (32 - m.prefix);
      return [
        dotted(m.net),
        dotted((m.net + 1) % 2 ** 32),
        dotted(m.net + size - 1),
        dotted((m.net + size) % 2 ** 32),
      ];
    }
    case 'v6': {
      const last = [...m.net];
      let bits = 128 - m.prefix;
      for (let i = 7; i >= 0 && bits > 0; i--) {
        const take = Math.min(16, bits);
        last[i] = (last[i] as number) | ((1 << take) - 1);
        bits -= take;
      }
      return [v6(m.net), v6([...m.net.slice(0, 7), (m.net[7] as number) ^ 1]), v6(last)];
    }
  }
}
