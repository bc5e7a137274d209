import type { NetworkAccess, NetworkAction } from '@toolgate/core';
import type { CompiledPolicy } from './types.js';

/** One host a call reaches, and what the policy's network section makes of it (explain, check). */
export interface ExplainedReach {
  raw: string;
  host: string | null;
  port?: number;
  scheme?: string;
  method: NetworkAccess['method'];
  origin: string;
  certain: boolean;
  reason?: string;
  /** `uncertain`: the host could not be named (judged NETWORK_UNCERTAIN); `allow` when not restricted. */
  decision: NetworkAction | 'uncertain';
  /** The rule that decided, as written (`deny evil.com`), `default: deny`, or why nothing did. */
  rule: string;
  /** `file#network.rules[i]` (absent for a default). */
  source?: string;
}

/** What the policy's `network` section decides for each reach of a call (pure: no I/O, no DNS). */
export function explainReaches(policy: CompiledPolicy, reaches: readonly NetworkAccess[]): ExplainedReach[] {
  const net = policy.network;
  return reaches.map((n): ExplainedReach => {
    const base = {
      raw: n.raw,
      host: n.host,
      ...(n.port !== undefined ? { port: n.port } : {}),
      ...(n.scheme !== undefined ? { scheme: n.scheme } : {}),
      method: n.method,
      origin: n.origin,
      certain: n.certain,
      ...(n.reason !== undefined ? { reason: n.reason } : {}),
    };
    if (!net || net.unrestricted)
      return {
        ...base,
        decision: 'allow',
        rule: net
          ? 'not restricted (default: allow, no deny or prompt rule)'
          : 'not restricted (no network section)',
      };
    if (!n.certain || n.host === null)
      return { ...base, decision: 'uncertain', rule: `host cannot be determined: ${n.reason ?? 'unknown'}` };
    const v = net.decide({
      host: n.host,
      method: n.method,
      ...(n.port !== undefined ? { port: n.port } : {}),
      ...(n.scheme !== undefined ? { scheme: n.scheme } : {}),
    });
    return {
      ...base,
      decision: v.action,
      rule: v.rule,
      ...(v.source !== undefined ? { source: v.source } : {}),
    };
  });
}

/** One reach in a line of text: `read https://x.org/ -> x.org:443 via folder-rules:args.url`. */
export function reachLine(r: ExplainedReach): string {
  const where = r.host === null ? '(host unknown)' : `${r.host}${r.port !== undefined ? `:${r.port}` : ''}`;
  return `${r.method} ${JSON.stringify(r.raw)} -> ${where} via ${r.origin}`;
}

/** The verdict of one reach in words: `deny by deny evil.com (file#network.rules[2])`. */
export function reachVerdict(r: ExplainedReach): string {
  return `${r.decision}: ${r.rule}${r.source ? `   (${r.source})` : ''}`;
}
