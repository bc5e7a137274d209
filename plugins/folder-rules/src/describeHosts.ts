import type { CompiledPolicy, ToolSpec } from './types.js';

/** At most this many host patterns are listed in a tool's description (the envelope caps the same). */
const MAX_HOSTS = 20;

/**
 * The network part of a URL tool's description (WebFetch, fetch servers, tools declaring `urls`): the hosts
 * the policy lets it fetch from, so the model picks one before being refused. `undefined` for other tools
 * and where the network is not restricted.
 */
export function hostDescription(spec: ToolSpec, policy: CompiledPolicy): string[] | undefined {
  const net = policy.network;
  if (!net || net.unrestricted || (!spec.urls?.length && !spec.urlText?.length)) return undefined;
  const hosts = net.allowedHosts('read');
  const lines = ['🌐 **NETWORK ACCESS RESTRICTIONS:**', ''];
  if (hosts.length === 0) lines.push('⚠️ **IMPORTANT:** No host may be fetched from without approval.');
  else {
    lines.push('⚠️ **IMPORTANT:** You can ONLY fetch from these hosts:', ...hosts.slice(0, MAX_HOSTS));
    if (hosts.length > MAX_HOSTS) lines.push(`(and ${hosts.length - MAX_HOSTS} more)`);
  }
  lines.push(
    '',
    net.defaultAction === 'prompt'
      ? 'Other hosts need the user’s approval.'
      : 'Use ONLY these hosts when calling this tool.',
  );
  return lines;
}
