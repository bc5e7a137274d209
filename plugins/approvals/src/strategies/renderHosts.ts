import type { PromptRequest } from '@toolgate/core';

/**
 * The hosts a call asks to reach (`NETWORK_PROMPT`, `NETWORK_UNCERTAIN` findings), one line each with the
 * reason and the rule: network findings carry no path, so they are not among the request's path items.
 * `printable` escapes what the model wrote (renderRequest's, passed in so the two files import one way).
 */
export function hostLines(prompt: PromptRequest, printable: (text: string) => string): string[] {
  const lines: string[] = [];
  for (const f of prompt.findings) {
    const net = f.network;
    if (!net) continue;
    const host = net.host === null ? `(cannot be determined: ${printable(net.raw)})` : printable(net.host);
    const port = net.port !== undefined ? `:${net.port}` : '';
    const typed = net.host !== null && net.raw !== net.host ? `   (as typed: ${printable(net.raw)})` : '';
    lines.push(`Network: ${net.method === 'read' ? 'fetch from' : 'send to'}   Host: ${host}${port}${typed}`);
    const rule = f.rule
      ? `   [rule ${printable(f.rule.pattern)}${f.rule.source ? ` from ${printable(f.rule.source)}` : ''}]`
      : '';
    lines.push(`  ${printable(f.reason)}${rule}`);
  }
  return lines;
}
