import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ApprovalRequest, approvals, queue } from '@toolgate/approvals';
import { type CallContext, createGuard } from '@toolgate/core';
import { folderRules } from '@toolgate/folder-rules';
import { shell } from '@toolgate/shell';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A host a human approved for the session (NETWORK_PROMPT, answered with more than "once"): the real
// policy plugin, the real shell analysis and the approvals plugin. The grant is by host and method — a
// WebFetch's approval lets a later `curl` GET of the same host through, not a POST, not another host.

let root: string;
let ctx: CallContext;
const POLICY = `rules:
  - {pattern: "<workspace>/**", access: write}
network:
  default: prompt
  rules:
    - {host: evil.example.com, action: deny}
`;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-hostgrant-')));
  mkdirSync(join(root, 'ws'));
  ctx = {
    sessionId: 's',
    agentId: 'a',
    cwd: join(root, 'ws'),
    workspace: join(root, 'ws'),
    home: root,
    env: { PATH: '/usr/bin:/bin', HOME: root },
  };
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a host approved for the session', () => {
  it('answers later reads of that host in any tool; a write, another host, a denied host are not answered', async () => {
    const q = queue();
    const guard = createGuard({
      plugins: [
        shell(),
        folderRules({ file: join(root, 'ws', 'toolgate.yaml'), source: POLICY }),
        approvals({ strategy: q }),
      ],
    });
    const ask = () =>
      new Promise<ApprovalRequest>((resolve) => {
        const sub = q.requests$.subscribe((r) => {
          queueMicrotask(() => sub.unsubscribe());
          resolve(r);
        });
      });
    const bash = (command: string) => guard.check({ tool: 'Bash', args: { command } }, ctx);

    let asked = ask();
    const first = guard.check(
      { tool: 'WebFetch', args: { url: 'https://docs.example.net/a', prompt: 'p' } },
      ctx,
    );
    q.respond((await asked).id, { approved: true, grant: 'subtree' });
    expect((await first).action).toBe('allow');

    // The same host, read, by another tool: no question.
    expect((await bash('curl -s https://docs.example.net/b')).action).toBe('allow');
    expect(q.pending()).toHaveLength(0);

    // A POST to it sends data: asked (and denied here).
    asked = ask();
    const post = bash('curl -s -d @notes.txt https://docs.example.net/upload');
    const r = await asked;
    expect(renderHost(r.prompt.findings)).toContain('docs.example.net');
    q.respond(r.id, { approved: false });
    expect((await post).action).toBe('deny');

    // Another host: asked.
    asked = ask();
    const other = bash('curl -s https://other.example.net/');
    q.respond((await asked).id, { approved: false });
    expect((await other).action).toBe('deny');

    // A host the policy denies is never asked about, grant or not.
    const denied = await bash('curl -s https://evil.example.com/');
    expect(denied.action).toBe('deny');
    expect(denied.reasons[0]?.code).toBe('NETWORK_DENIED');
  });
});

function renderHost(findings: ReadonlyArray<{ network?: { host: string | null } }>): string {
  return findings.map((f) => f.network?.host ?? '').join(' ');
}
