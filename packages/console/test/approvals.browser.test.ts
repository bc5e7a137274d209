import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DeskEvent } from '@toolgate/approvals';
import type { Page } from 'playwright-core';
import { filter, firstValueFrom, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './helpers/axe.js';
import { CHROMIUM, launchBrowser, type TestBrowser } from './helpers/browser.js';
import { type Stack, startStack } from './helpers/stack.js';

// The main scenario, end to end with real parts: a real guard (folder-rules, shell, a chained audit
// trail, approvals on the in-process desk) and the console beside it, answered by a person in Debian's
// Chromium — by mouse and typing, and once with the keyboard alone. Screenshots for the docs come from here.
const IMAGES = fileURLToPath(new URL('../../../docs/images/', import.meta.url));

let stack: Stack;
let browser: TestBrowser;
let page: Page;

const raised = (n: number) =>
  firstValueFrom(
    stack.desk.events$.pipe(
      filter((e): e is Extract<DeskEvent, { type: 'raised' }> => e.type === 'raised'),
      take(n),
      toArray(),
    ),
  );

/** The page's event stream is open (the script says so in the live-state line). */
const connected = (p: Page) =>
  p.waitForFunction(() => document.querySelector('[data-live]')?.textContent === 'connected', undefined, {
    timeout: 20_000,
  });

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `${CHROMIUM} is installed (scripts/ensure-test-tools.sh)`).toBe(true);
  stack = await startStack();
  browser = await launchBrowser();
  page = await browser.context.newPage();
  await page.goto(stack.web.loginUrl());
  await page.waitForURL(`${stack.web.url}/`);
  await connected(page);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe('approvals in the browser', () => {
  it('two agents wait; one is approved for the session, the other denied, each gets exactly its answer; a later call of the approved session passes without a question; the audit view shows all three', async () => {
    const two = raised(2);
    const callA = stack.guard.check(
      { tool: 'write_file', args: { path: `${stack.ws}/secrets/plan.md`, content: 'x' } },
      stack.ctx('agent-a', 'sess-a'),
    );
    const callB = stack.guard.check(
      { tool: 'bash', args: { command: 'echo token > secrets/b.txt && cat src/a.ts' } },
      stack.ctx('agent-b', 'sess-b'),
    );
    const [ea, eb] = (await two).sort((x, y) => x.item.agentId.localeCompare(y.item.agentId));
    const a = page.locator(`#item-${ea!.item.id}`);
    const b = page.locator(`#item-${eb!.item.id}`);
    await a.waitFor();
    await b.waitFor();
    // What the person sees: tool, agent, session, the path with its rule and why, the command as analysed.
    await expect.poll(() => a.locator('h3').textContent()).toContain('agent-a');
    expect(await b.locator('h3').textContent()).toContain('sess-b');
    expect(await b.locator('.command').textContent()).toBe('echo token > secrets/b.txt && cat src/a.ts');
    const bTable = await b.locator('table').textContent();
    expect(bTable).toContain(`${stack.ws}/secrets/b.txt`);
    expect(bTable).toContain('<workspace>/secrets/**');
    expect(bTable).toContain('PATH_PROMPT');
    expect(await page.locator('#pending-count').textContent()).toBe('2');
    expect(Number(await a.locator('[data-deadline]').getAttribute('data-deadline'))).toBe(ea!.item.deadline);
    await page.screenshot({ path: `${IMAGES}console-approvals.png`, fullPage: true });
    expect(await axeViolations(page)).toEqual([]);

    await a
      .getByLabel('Scope of an approval')
      .selectOption({ label: 'This session: the folder and everything below it, or the host' });
    await a.getByLabel('Reason (recorded in the audit trail)').fill('plan is fine');
    await a.getByRole('button', { name: 'Allow' }).click();
    await b.getByLabel('Reason (recorded in the audit trail)').fill('no tokens in secrets');
    await b.getByRole('button', { name: 'Deny' }).click();

    const [da, db] = await Promise.all([callA, callB]);
    expect(da.action).toBe('allow');
    expect(da.approval).toMatchObject({ approved: true, by: 'ann (console)', reason: 'plan is fine' });
    expect((da.approval?.grant as { scope?: string } | undefined)?.scope).toBe('subtree');
    expect(db.action).toBe('deny');
    expect(db.approval).toMatchObject({
      approved: false,
      by: 'ann (console)',
      reason: 'no tokens in secrets',
    });
    await a.waitFor({ state: 'detached' });
    await b.waitFor({ state: 'detached' });

    // The approved session's next call in that folder: no question at all.
    const events: DeskEvent[] = [];
    const sub = stack.desk.events$.subscribe((e) => events.push(e));
    const later = await stack.guard.check(
      { tool: 'write_file', args: { path: `${stack.ws}/secrets/notes/later.md`, content: 'y' } },
      stack.ctx('agent-a', 'sess-a'),
    );
    sub.unsubscribe();
    expect(later.action).toBe('allow');
    expect(later.approval?.by).toBe('grant');
    expect(events).toEqual([]);

    // The audit view: all three decisions, the chain verified, the denial in the chart.
    await page.goto(`${stack.web.url}/audit?path=${encodeURIComponent('**/secrets/**')}`);
    const rows = page.locator('#records tbody tr');
    expect(await rows.count()).toBe(3);
    const text = await page.locator('#records').textContent();
    for (const d of [da, db, later]) expect(text).toContain(d.id);
    expect(await page.locator('#verify').textContent()).toMatch(/Hash chain verified: \d+ records/);
    expect(await page.locator('svg[role="img"]').first().getAttribute('aria-label')).toContain('bash 1');
    await page.screenshot({ path: `${IMAGES}console-audit.png`, fullPage: true });
    expect(await axeViolations(page)).toEqual([]);

    // Filter by agent and decision with the form, then open a record.
    await page.getByLabel('Agent', { exact: true }).fill('agent-b');
    await page.getByLabel('Decision', { exact: true }).selectOption('deny');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/agent=agent-b/);
    expect(await rows.count()).toBe(1);
    await rows.first().getByRole('link').click();
    await page.waitForURL(/\/audit\/record\?id=/);
    const record = JSON.parse((await page.locator('#record-json').textContent()) ?? '{}');
    expect(record).toMatchObject({
      decisionId: db.id,
      decision: 'deny',
      agentId: 'agent-b',
      sessionId: 'sess-b',
    });
    expect(record.approval).toMatchObject({ approved: false, by: 'ann (console)' });
    await page.screenshot({ path: `${IMAGES}console-record.png`, fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
  }, 90_000);

  it('keyboard alone: Tab to the question, change the scope with the arrow keys, type a reason, Enter on Allow', async () => {
    await page.goto(`${stack.web.url}/`);
    await connected(page);
    const one = raised(1);
    const call = stack.guard.check(
      { tool: 'write_file', args: { path: `${stack.ws}/secrets/k.md`, content: 'k' } },
      stack.ctx('agent-k', 'sess-k'),
    );
    const [e] = await one;
    const item = page.locator(`#item-${e!.item.id}`);
    await item.waitFor();
    const scopeId = `scope-${e!.item.id}`;
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate((id) => document.activeElement?.id === id, scopeId);
    }
    expect(reached, 'the scope control is reachable with Tab').toBe(true);
    // Visible focus: the focused control has an outline.
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).not.toBe(
      'none',
    );
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await item.getByLabel('Scope of an approval').inputValue()).toBe('directory');
    await page.keyboard.press('Tab');
    await page.keyboard.type('keyboard only');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Allow');
    await page.keyboard.press('Enter');
    const d = await call;
    expect(d.action).toBe('allow');
    expect(d.approval).toMatchObject({ by: 'ann (console)', reason: 'keyboard only' });
    expect((d.approval?.grant as { scope?: string } | undefined)?.scope).toBe('directory');
    await item.waitFor({ state: 'detached' });
    // The announcement region told a screen reader what happened.
    expect(await page.locator('#announce').textContent()).toMatch(/Allowed|answered/);
  }, 60_000);

  it('two tabs: a question answered in one disappears from the other; the late answer there is refused', async () => {
    const second = await browser.context.newPage();
    await second.goto(`${stack.web.url}/`);
    await connected(second);
    await page.goto(`${stack.web.url}/`);
    await connected(page);
    const one = raised(1);
    const call = stack.guard.check(
      { tool: 'write_file', args: { path: `${stack.ws}/secrets/t.md`, content: 't' } },
      stack.ctx('agent-t', 'sess-t'),
    );
    const [e] = await one;
    const sel = `#item-${e!.item.id}`;
    await page.locator(sel).waitFor();
    await second.locator(sel).waitFor();
    await page.locator(sel).getByRole('button', { name: 'Deny' }).click();
    expect((await call).action).toBe('deny');
    await second.locator(sel).waitFor({ state: 'detached' });
    expect(await second.locator('#announce').textContent()).toMatch(/answered by ann \(console\) \(denied\)/);
    // A form posted late (no script: the plain form path) gets "no longer waiting", never a second answer.
    const status = await second.evaluate(
      async ({ id, csrf }) => {
        const r = await fetch(`/approvals/${id}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `_csrf=${encodeURIComponent(csrf)}&decision=allow&scope=once`,
          redirect: 'manual',
        });
        return r.type === 'opaqueredirect' ? 'redirect' : String(r.status);
      },
      {
        id: e!.item.id,
        csrf: (await second.locator('meta[name="csrf-token"]').getAttribute('content')) ?? '',
      },
    );
    expect(status).toBe('redirect');
    await second.goto(`${stack.web.url}/?done=gone`);
    expect(await second.locator('.flash').textContent()).toMatch(/no longer waiting/);
    await second.close();
  }, 60_000);

  it('explain: a path typed in shows the explain output', async () => {
    await page.goto(`${stack.web.url}/explain`);
    await page.getByLabel('Path', { exact: true }).fill('~/.ssh/id_rsa');
    await page.getByRole('button', { name: 'Explain the path' }).click();
    await page.waitForURL(/\/explain\?path=/);
    const out = await page.locator('#explain-output').textContent();
    expect(out).toMatch(/^decision: DENY/);
    expect(out).toContain('~/.ssh/**');
    // Twin: a workspace file is allowed.
    await page.getByLabel('Call as JSON').fill(`{"tool": "bash", "args": {"command": "cat src/a.ts"}}`);
    await page.getByRole('button', { name: 'Explain the call' }).click();
    await page.waitForURL(/\/explain\?call=/);
    expect(await page.locator('#explain-output').textContent()).toMatch(/^decision: ALLOW/);
    await page.screenshot({ path: `${IMAGES}console-explain.png`, fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
    expect(readFileSync(`${IMAGES}console-explain.png`).subarray(1, 4).toString()).toBe('PNG');
    // The checker's twin: a page with an unlabelled field is reported, so an empty list above means something.
    const probe = await browser.context.newPage();
    await probe.setContent(
      '<!doctype html><html lang="en"><title>t</title><main><input type="text"></main></html>',
    );
    expect((await axeViolations(probe)).map((v) => v.id)).toContain('label');
    await probe.close();
  }, 60_000);
});
