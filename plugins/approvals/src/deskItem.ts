import type { MatchedRule } from '@toolgate/core';
import type { DeskAccess, DeskHost, DeskItem } from './desk.js';
import type { ApprovalRequest } from './types.js';

const ARGS_CAP = 4000;

function argsText(args: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(args) ?? 'undefined';
  } catch {
    // A cyclic or BigInt-bearing argument cannot be shown as JSON; the person still sees the accesses.
    text = '(arguments cannot be shown as JSON)';
  }
  return text.length > ARGS_CAP ? `${text.slice(0, ARGS_CAP)}…` : text;
}

/** A rule in one line, for a host finding (path items keep the structured rule). */
export function ruleText(rule: MatchedRule): string {
  return `${rule.pattern} (${rule.access})${rule.source ? ` from ${rule.source}` : ''}`;
}

/**
 * The plain-JSON view of a request a desk shows (`DeskItem`): a copy, so nothing a reader does reaches the
 * request the plugin is deciding on.
 */
export function deskItemOf(
  request: ApprovalRequest,
  deadline: number,
  raisedAt: number,
  origin = '',
): DeskItem {
  const { prompt } = request;
  const accesses: DeskAccess[] = prompt.accesses.map((a) => ({
    op: a.op,
    scope: a.scope,
    raw: a.raw,
    path: a.path,
    realPath: a.realPath,
    certain: a.certain,
    origin: a.origin,
    ...(a.reason !== undefined ? { reason: a.reason } : {}),
  }));
  const hosts: DeskHost[] = [];
  for (const f of prompt.findings) {
    if (!f.network) continue;
    hosts.push({
      raw: f.network.raw,
      host: f.network.host,
      ...(f.network.port !== undefined ? { port: f.network.port } : {}),
      method: String(f.network.method),
      code: f.code,
      reason: f.reason,
      ...(f.rule ? { rule: ruleText(f.rule) } : {}),
    });
  }
  const command = prompt.call.args.command;
  return {
    id: request.id,
    sessionId: request.sessionId,
    agentId: request.agentId,
    tool: request.tool,
    items: request.items.map((i) => ({ ...i, ...(i.rule ? { rule: { ...i.rule } } : {}) })),
    deadline,
    raisedAt,
    cwd: prompt.ctx.cwd,
    ...(typeof command === 'string' ? { command } : {}),
    args: argsText(prompt.call.args),
    accesses,
    hosts,
    origin,
  };
}
