import type { ApprovalRequest } from '../types.js';
import { hostLines } from './renderHosts.js';

// Paths and tool names come from the model. Written raw to a terminal, an escape sequence in a file name
// could move the cursor, erase the question or paint a different path over the real one; every control
// character is shown escaped instead.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function printable(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The question as seed 002 shows it, with every prompt-tier access of the call (seed 004). */
export function renderRequest(request: ApprovalRequest): string {
  const lines = [
    '',
    'Path Confirmation Required',
    `Tool: ${printable(request.tool)}   Session: ${printable(request.sessionId)}`,
  ];
  for (const item of request.items) {
    const where = item.realPath === null ? '(cannot be determined)' : printable(item.realPath);
    const typed = item.realPath === item.raw ? '' : `   (as typed: ${printable(item.raw)})`;
    const span = item.scope === 'subtree' ? ' and everything beneath it' : '';
    lines.push(`Operation: ${item.op}   Path: ${where}${span}${typed}`);
    const rule = item.rule
      ? `   [rule ${printable(item.rule.pattern)}${item.rule.source ? ` from ${printable(item.rule.source)}` : ''}]`
      : '';
    lines.push(`  ${printable(item.reason)}${rule}`);
  }
  lines.push(...hostLines(request.prompt, printable));
  lines.push('Y = allow this call and its directory for the session, n = deny,');
  lines.push('a = allow the directory and its subdirectories for the session, q = cancel the session');
  return `${lines.join('\n')}\n`;
}
