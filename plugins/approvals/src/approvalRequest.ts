import type { Access, PromptRequest } from '@toolgate/core';
import type { ApprovalItem, ApprovalRequest } from './types.js';

/** A request as the plugin handles it: what the human is shown, plus what grants can and cannot answer. */
/** A host the call reaches that a human must approve (a NETWORK_PROMPT finding): what a host grant answers. */
export interface HostNeed {
  host: string;
  method: 'read' | 'write';
}

export interface PreparedRequest {
  request: ApprovalRequest;
  /** The hosts to approve (NETWORK_PROMPT findings with a host); a host grant of the session answers one. */
  hosts: readonly HostNeed[];
  /** Whether standing grants may answer it: every item has a known real path and there is at least one. */
  grantable: boolean;
  /** Identical concurrent requests of a session share this key, and so share one question. */
  key: string;
}

function itemOf(access: Access, code: string, reason: string, rule: ApprovalItem['rule']): ApprovalItem {
  return {
    op: access.op,
    scope: access.scope,
    raw: access.raw,
    realPath: access.certain ? access.realPath : null,
    code,
    reason,
    ...(rule ? { rule } : {}),
  };
}

/**
 * Turns core's request into one question carrying every prompt-tier access of the call (seed 004). A finding
 * without an access (a tool-level prompt) or core's NO_POLICY prompt is about the whole call, so every
 * access of the call is put in front of the human.
 */
export function prepareRequest(prompt: PromptRequest): PreparedRequest {
  const items: ApprovalItem[] = [];
  const hosts: HostNeed[] = [];
  let wholeCall = false;
  let unknownHost = false;
  for (const finding of prompt.findings) {
    // A host (NETWORK_PROMPT): no path item; the human is shown the host (strategies/renderHosts.ts), and a
    // host grant of the session (same host, same method) answers it. A reach without a known host is about
    // the call as a whole: only a call with the same arguments is the same question.
    if (finding.network && !finding.access) {
      const { host, method } = finding.network;
      if (host !== null && (method === 'read' || method === 'write')) {
        if (!hosts.some((h) => h.host === host && h.method === method)) hosts.push({ host, method });
      } else {
        wholeCall = true;
        unknownHost = true;
      }
      continue;
    }
    if (finding.access && finding.code !== 'NO_POLICY') {
      items.push(itemOf(finding.access, finding.code, finding.reason, finding.rule));
    } else {
      wholeCall = true;
      for (const access of prompt.accesses)
        items.push(itemOf(access, finding.code, finding.reason, undefined));
    }
  }
  const unique = dedupeItems(items);
  // A prompt about nothing in particular (no accesses, no hosts) must never be answered by a grant: "every
  // item is covered" would be vacuously true.
  const grantable =
    !unknownHost && unique.length + hosts.length > 0 && unique.every((i) => i.realPath !== null);
  const request: ApprovalRequest = {
    id: prompt.id,
    sessionId: prompt.ctx.sessionId,
    agentId: prompt.ctx.agentId,
    tool: prompt.call.tool,
    items: unique,
    prompt,
  };
  return { request, hosts, grantable, key: requestKey(request, wholeCall, hosts) };
}

function itemKey(i: ApprovalItem): string {
  return `${i.op}\u0000${i.scope}\u0000${i.realPath ?? `raw:${i.raw}`}\u0000${i.code}`;
}

function dedupeItems(items: ApprovalItem[]): ApprovalItem[] {
  const seen = new Set<string>();
  return items.filter((i) => {
    const k = itemKey(i);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function requestKey(request: ApprovalRequest, wholeCall: boolean, hosts: readonly HostNeed[]): string {
  const parts = [
    ...request.items.map(itemKey),
    ...hosts.map((h) => `host\u0000${h.method}\u0000${h.host}`),
  ].sort();
  let key = `${request.tool}\u0001${parts.join('\u0001')}`;
  if (wholeCall || parts.length === 0) {
    // About the call as a whole: only a call with the very same arguments is the same question.
    try {
      key += `\u0002${JSON.stringify(request.prompt.call.args)}`;
    } catch {
      key += `\u0002${request.id}`;
    }
  }
  return key;
}
