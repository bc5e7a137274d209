import type {
  CallState,
  Finding,
  MatchedRule,
  NetworkAccess,
  NetworkPolicy,
  NetworkVerdict,
} from '@toolgate/core';
import { PLUGIN_NAME } from './findings.js';
import type { CompiledPolicy } from './types.js';

/** The rule that decided, as the audit, explain and the envelope (`rule`) show it. */
export function networkRule(verdict: NetworkVerdict): MatchedRule {
  return {
    plugin: PLUGIN_NAME,
    pattern: verdict.rule,
    access: verdict.action,
    ...(verdict.source !== undefined ? { source: verdict.source } : {}),
  };
}

/** Who reaches the host, in words: `curl` for `shell:curl`, else the tool. */
function actor(access: NetworkAccess, tool: string): string {
  return access.origin.startsWith('shell:') ? access.origin.split(':')[1] || tool : tool;
}

function verb(access: NetworkAccess): string {
  return access.method === 'read' ? 'fetch from' : 'send data to';
}

function reasonOf(access: NetworkAccess, verdict: NetworkVerdict, tool: string): string {
  const host = `${access.host}${access.port !== undefined ? `:${access.port}` : ''}`;
  const why =
    verdict.source === undefined
      ? verdict.action === 'prompt'
        ? 'hosts outside the network allowlist need approval'
        : 'host is not in the network allowlist'
      : verdict.action === 'prompt'
        ? `host matches prompt rule ${verdict.rule}: approval required`
        : `host matches deny rule ${verdict.rule}`;
  return `${actor(access, tool)} would ${verb(access)} ${host}: ${why}`;
}

/** Judges one certain reach: `undefined` when allowed (its rule recorded), else the finding. */
function findingOf(
  net: NetworkPolicy,
  access: NetworkAccess,
  state: CallState,
  tool: string,
): Finding | undefined {
  const verdict = net.decide({
    host: access.host as string,
    method: access.method,
    ...(access.port !== undefined ? { port: access.port } : {}),
    ...(access.scheme !== undefined ? { scheme: access.scheme } : {}),
  });
  const rule = networkRule(verdict);
  if (verdict.action === 'allow') {
    if (verdict.source !== undefined) state.match(rule);
    return undefined;
  }
  return {
    action: verdict.action,
    code: verdict.action === 'prompt' ? 'NETWORK_PROMPT' : 'NETWORK_DENIED',
    reason: reasonOf(access, verdict, tool),
    network: access,
    rule,
    hint:
      verdict.action === 'prompt'
        ? 'A human must approve reaching this host; wait for the answer or use one of the allowed hosts.'
        : "Use one of the allowed hosts, or ask the user to allow this host in the policy's network section.",
    allowedHosts: net.allowedHosts(access.method),
  };
}

/**
 * Judges the hosts a call reaches (`state.network`) against the policy's `network` section. Certain reaches
 * first: a deny stops the call (`NETWORK_DENIED`), a prompt is recorded (`NETWORK_PROMPT`). Then a reach
 * whose host analysis could not name (`NETWORK_UNCERTAIN`): under a policy that sandboxes shell calls it is
 * a deny the core defers to the sandbox, whose proxy judges the host really connected to with these same
 * rules; otherwise the policy's `uncertain` (deny, or prompt). Last, so a deferred one leaves nothing of
 * the call unjudged. No section, or one that restricts nothing: no work at all.
 */
export function judgeNetwork(policy: CompiledPolicy, state: CallState, tool: string): Finding | undefined {
  const net = policy.network;
  if (net === undefined || net.unrestricted || state.network.length === 0) return undefined;
  let uncertain: NetworkAccess | undefined;
  for (const access of state.network) {
    if (!access.certain || typeof access.host !== 'string') {
      uncertain ??= access;
      continue;
    }
    const finding = findingOf(net, access, state, tool);
    if (finding?.action === 'deny') return finding;
    if (finding) state.prompt(finding);
  }
  if (uncertain === undefined) return undefined;
  const sandboxes = policy.extras.sandbox === 'uncertain' || policy.extras.sandbox === 'always';
  const action =
    sandboxes && state.claimed('shell') ? 'deny' : policy.extras.uncertain === 'prompt' ? 'prompt' : 'deny';
  const finding: Finding = {
    action,
    code: 'NETWORK_UNCERTAIN',
    reason: `${actor(uncertain, tool)} reaches the network but the host of ${JSON.stringify(uncertain.raw)} cannot be determined: ${uncertain.reason ?? 'unknown'}`,
    network: uncertain,
    hint: 'Write the URL or host literally (no variables, substitutions, or hosts taken from files or other programs), or ask the user.',
    allowedHosts: net.allowedHosts(uncertain.method),
  };
  if (action === 'deny') return finding;
  state.prompt(finding);
  return undefined;
}
