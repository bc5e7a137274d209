import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Decision } from '@toolgate/core';
import { Observable } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ApprovalAnswer,
  type ApprovalRequest,
  type ApprovalStrategy,
  autoAllow,
  autoDeny,
  type Suggestion,
} from '../src/index.js';
import { guardFor } from './helpers/guard.js';
import { makeWorkspace, type Workspace } from './helpers/workspace.js';

let ws: Workspace;
beforeEach(() => {
  ws = makeWorkspace();
});
afterEach(() => ws.cleanup());

function answering(answer: ApprovalAnswer) {
  const asked: ApprovalRequest[] = [];
  const notes: string[] = [];
  const strategy: ApprovalStrategy = {
    name: 'scripted',
    ask: (r) => {
      asked.push(r);
      return new Observable((s) => s.next(answer));
    },
    notify: (m) => notes.push(m),
  };
  return { asked, notes, strategy };
}

const write = (path: string) => ({ tool: 'write_file', args: { path } });

describe('fatigue controls', () => {
  it('maxConfirmationsPerSession: after N questions, later prompts are denied with PROMPT_LIMIT (per session)', async () => {
    const s = answering({ approved: true });
    const guard = guardFor(ws, { strategy: s.strategy, maxConfirmationsPerSession: 2 });
    const out: Decision[] = [];
    for (let i = 0; i < 3; i++) out.push(await guard.check(write(`secrets/${i}`), ws.ctx('s1')));
    expect(out.map((d) => d.action)).toEqual(['allow', 'allow', 'deny']);
    expect(out[2]!.envelope?.code).toBe('PROMPT_LIMIT');
    expect(out[2]!.envelope?.error).toMatch(/maxConfirmationsPerSession 2/);
    expect(s.asked).toHaveLength(2);
    // Another session has its own count.
    expect((await guard.check(write('secrets/0'), ws.ctx('s2'))).action).toBe('allow');
  });

  it('grants do not count against the limit; de-duplicated waiters count once', async () => {
    const s = answering({ approved: true, grant: 'directory' });
    const guard = guardFor(ws, { strategy: s.strategy, maxConfirmationsPerSession: 1 });
    const ctx = ws.ctx('s1');
    const same = await Promise.all([1, 2, 3].map(() => guard.check(write('secrets/a'), ctx)));
    expect(same.map((d) => d.action)).toEqual(['allow', 'allow', 'allow']);
    for (let i = 0; i < 5; i++)
      expect((await guard.check(write(`secrets/f${i}`), ctx)).approval?.by).toBe('grant');
    expect((await guard.check(write('secrets/deep/x'), ctx)).envelope?.code).toBe('PROMPT_LIMIT');
    expect(s.asked).toHaveLength(1);
  });

  it('suggestAfter: after K approvals of one directory, the silencing rule is suggested once', async () => {
    const s = answering({ approved: true, grant: 'once' });
    const guard = guardFor(ws, { strategy: s.strategy, suggestAfter: 3 });
    const suggestions: Suggestion[] = [];
    guard.events.on('approvals:suggestion', (x: Suggestion) => suggestions.push(x));
    for (let i = 0; i < 5; i++) await guard.check(write(`secrets/${i}`), ws.ctx('s1'));
    expect(suggestions).toHaveLength(1);
    expect(suggestions[0]).toMatchObject({
      directory: ws.secrets,
      op: 'write',
      approvals: 3,
      rule: { pattern: `${ws.secrets}/**`, access: 'write' },
    });
    expect(s.notes).toEqual([suggestions[0]!.message]);
    expect(s.notes[0]).toContain(`"pattern": "${ws.secrets}/**"`);
  });
});

describe('persisting grants to a policy overlay', () => {
  it('persist: true writes the rule to the overlay file (and the session keeps the grant)', async () => {
    const overlayFile = join(ws.root, 'policy', 'approved.json');
    const guard = guardFor(ws, { strategy: autoAllow({ grant: 'subtree' }), overlayFile });
    // autoAllow does not persist: nothing is written.
    await guard.check(write('secrets/a'), ws.ctx('s0'));
    const s = answering({ approved: true, grant: 'subtree', persist: true, by: 'alice' });
    const g2 = guardFor(ws, { strategy: s.strategy, overlayFile });
    const d = await g2.check(write('secrets/deep/a'), ws.ctx('s1'));
    expect(d.approval?.grant).toMatchObject({ persist: true });
    await g2.check(write('secrets/deep/b'), ws.ctx('s2'));
    const overlay = JSON.parse(readFileSync(overlayFile, 'utf8'));
    expect(overlay.version).toBe(1);
    // One rule, even though a second session approved the same thing.
    expect(overlay.rules).toEqual([
      expect.objectContaining({
        pattern: `${join(ws.secrets, 'deep')}/**`,
        access: 'write',
        source: 'approvals',
        by: 'alice',
        sessionId: 's1',
      }),
    ]);
  });

  it('an overlay file that is not an overlay is left untouched, with a warning', async () => {
    const overlayFile = join(ws.root, 'mine.json');
    writeFileSync(overlayFile, '{"something": "else"}');
    const s = answering({ approved: true, grant: 'directory', persist: true });
    const guard = guardFor(ws, { strategy: s.strategy, overlayFile });
    const warnings: { message: string }[] = [];
    guard.events.on('approvals:warning', (w) => warnings.push(w));
    expect((await guard.check(write('secrets/a'), ws.ctx('s1'))).action).toBe('allow');
    expect(readFileSync(overlayFile, 'utf8')).toBe('{"something": "else"}');
    expect(warnings[0]!.message).toMatch(/not an approvals overlay/);
    // Once the user fixes the file, later approvals are written again (one failure does not stick).
    writeFileSync(overlayFile, '{"version": 1, "rules": []}');
    await guard.check(write('secrets/deep/b'), ws.ctx('s1'));
    expect(JSON.parse(readFileSync(overlayFile, 'utf8')).rules).toHaveLength(1);
  });
});

describe('wild mode', () => {
  it('TOOLGATE_WILD_MODE=true approves every prompt as wild-mode, warns once, and denies still deny', async () => {
    const s = answering({ approved: false });
    const events: unknown[] = [];
    const seen: Decision[] = [];
    const guard = guardFor(
      ws,
      { strategy: s.strategy, env: { TOOLGATE_WILD_MODE: 'true' } },
      {
        plugins: [
          {
            name: 'audit-probe',
            apply(hooks) {
              hooks.onDecision.tap({}, (d) => {
                seen.push(d);
              });
            },
          },
        ],
      },
    );
    guard.events.on('wild-mode', (e) => events.push(e));
    const ok = await guard.check(write('secrets/a'), ws.ctx('s1'));
    expect(ok.action).toBe('allow');
    expect(ok.approval).toMatchObject({ approved: true, by: 'wild-mode' });
    const denied = await guard.check(write('private/key'), ws.ctx('s1'));
    expect(denied.action).toBe('deny');
    expect(s.asked).toHaveLength(0);
    // Every call it lets through is still a decision observers (the audit log) record.
    expect(seen.map((d) => d.approval?.by ?? d.action)).toEqual(['wild-mode', 'deny']);
    expect(events).toHaveLength(0); // emitted at apply time, before this listener existed
  });

  it('the wild-mode warning is emitted when the plugin is applied', async () => {
    const { createGuard } = await import('@toolgate/core');
    const { approvals } = await import('../src/index.js');
    const guard = createGuard();
    const events: { message: string }[] = [];
    guard.events.on('wild-mode', (e) => events.push(e));
    guard.use(approvals({ strategy: autoDeny(), wildMode: true }));
    expect(events).toHaveLength(1);
    expect(events[0]!.message).toMatch(/WILD MODE/);
  });

  it('is never the default, and an explicit wildMode: false wins over the environment', async () => {
    for (const options of [
      {},
      { env: { TOOLGATE_WILD_MODE: '1' } },
      { env: { TOOLGATE_WILD_MODE: 'true' }, wildMode: false },
    ]) {
      const d = await guardFor(ws, { strategy: autoDeny(), ...options }).check(
        write('secrets/a'),
        ws.ctx('s'),
      );
      expect(d.action).toBe('deny');
    }
  });

  it("the agent's own environment (ctx.env) cannot switch it on", async () => {
    const ctx = { ...ws.ctx('s'), env: { TOOLGATE_WILD_MODE: 'true' } };
    const d = await guardFor(ws, { strategy: autoDeny(), env: {} }).check(write('secrets/a'), ctx);
    expect(d.action).toBe('deny');
  });
});
