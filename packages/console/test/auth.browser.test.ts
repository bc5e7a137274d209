import { existsSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type DeskEvent, desk } from '@toolgate/approvals';
import type { Page } from 'playwright-core';
import { filter, firstValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole } from '../src/index.js';
import { CHROMIUM, launchBrowser, type TestBrowser } from './helpers/browser.js';
import { type Stack, startStack } from './helpers/stack.js';

// Who may use the console, attacked: login links are single use and short lived, the API needs the token,
// a cookie alone changes nothing (CSRF token and Origin), other origins and other Host names are refused.
let stack: Stack;
let browser: TestBrowser;
let page: Page;
let evil: Server;
let evilUrl: string;
let evilPage = '';

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `${CHROMIUM} is installed (scripts/ensure-test-tools.sh)`).toBe(true);
  stack = await startStack();
  browser = await launchBrowser();
  page = await browser.context.newPage();
  // Another origin on the same machine (same site for the browser: SameSite=Strict cookies DO go along).
  evil = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(evilPage);
  });
  await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
  evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
  await new Promise((r) => evil?.close(r));
});

function rawGet(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('console login and request checks', () => {
  it('a login code works once; the address bar then holds no code; the second use is refused', async () => {
    const link = stack.web.loginUrl();
    const first = await page.goto(link);
    expect(first?.status()).toBe(200);
    await page.waitForURL(`${stack.web.url}/`);
    expect(page.url()).toBe(`${stack.web.url}/`);
    expect(await page.locator('h1').textContent()).toBe('Approvals');
    const cookies = await browser.context.cookies(stack.web.url);
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    const again = await browser.context.newPage();
    const second = await again.goto(link);
    expect(second?.status()).toBe(401);
    expect(await again.locator('main').textContent()).toMatch(/already used, has expired/);
    await again.close();
    // Security headers on every page.
    const h = first!.headers();
    expect(h['content-security-policy']).toContain("script-src 'self'");
    expect(h['content-security-policy']).not.toContain('unsafe-inline');
    expect(h['x-frame-options']).toBe('DENY');
    expect(h['cache-control']).toBe('no-store');
  });

  it('an expired login code is refused', async () => {
    let t = Date.now();
    const web = await startConsole({ loginCodeTtlMs: 1000, now: () => t });
    try {
      const link = web.loginUrl();
      t += 1001;
      expect((await fetch(link)).status).toBe(401);
      const fresh = web.loginUrl();
      expect((await fetch(fresh, { redirect: 'manual' })).status).toBe(200);
    } finally {
      await web.close();
    }
  });

  it('the API: no token ⇒ 401, a wrong one ⇒ 401, the token ⇒ 200; pages without a session ⇒ 401', async () => {
    const api = `${stack.web.url}/api/pending`;
    expect((await fetch(api)).status).toBe(401);
    expect((await fetch(api, { headers: { authorization: `Bearer ${'x'.repeat(43)}` } })).status).toBe(401);
    const ok = await fetch(api, { headers: { authorization: `Bearer ${stack.web.token}` } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ pending: [] });
    expect((await fetch(`${stack.web.url}/`)).status).toBe(401);
    expect((await fetch(`${stack.web.url}/audit`)).status).toBe(401);
    // A new login link needs the token, not a browser session.
    const link = await fetch(`${stack.web.url}/api/login-codes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.web.token}` },
    });
    expect(link.status).toBe(201);
    expect(((await link.json()) as { url: string }).url).toMatch(/\/login\?code=/);
  });

  it('a state change with the session cookie but without the CSRF token ⇒ 403; with it, it goes through', async () => {
    await page.goto(`${stack.web.url}/`);
    const statuses = await page.evaluate(async () => {
      const csrf = document.querySelector('meta[name="csrf-token"]')!.getAttribute('content')!;
      const post = (headers: Record<string, string>) =>
        fetch('/api/approvals/nope', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ decision: 'allow' }),
        }).then((r) => r.status);
      return [
        await post({}),
        await post({ 'x-csrf-token': 'wrong'.padEnd(43, 'x') }),
        await post({ 'x-csrf-token': csrf }),
      ];
    });
    // 409: the request was accepted and there is no such question waiting.
    expect(statuses).toEqual([403, 403, 409]);
  });

  it('cross-origin: another origin on this machine cannot answer a question, by form or by fetch; a foreign Host is refused', async () => {
    const raised = firstValueFrom(
      stack.desk.events$.pipe(
        filter((e): e is Extract<DeskEvent, { type: 'raised' }> => e.type === 'raised'),
      ),
    );
    const call = stack.guard.check(
      { tool: 'write_file', args: { path: `${stack.ws}/secrets/x.md`, content: 'x' } },
      stack.ctx('agent-x', 'sess-x'),
    );
    const { item } = await raised;
    const csrf = (await page.locator('meta[name="csrf-token"]').getAttribute('content')) ?? '';
    // The attacker even knows the CSRF token here: the Origin check alone must stop it.
    evilPage = `<!doctype html><body><form id="f" method="post" action="${stack.web.url}/approvals/${item.id}">
<input name="_csrf" value="${csrf}"><input name="decision" value="allow"><input name="scope" value="subtree"></form>
<p id="out"></p><script>
fetch(${JSON.stringify(`${stack.web.url}/api/approvals/${item.id}`)}, {method: 'POST', credentials: 'include', mode: 'no-cors',
  headers: {'content-type': 'text/plain'}, body: JSON.stringify({decision: 'allow', _csrf: ${JSON.stringify(csrf)}})})
  .finally(() => document.getElementById('f').submit());
</script></body>`;
    const attack = await browser.context.newPage();
    const submitted = attack.waitForResponse(
      (r) =>
        r.url().includes(`/approvals/${item.id}`) &&
        r.request().method() === 'POST' &&
        r.request().resourceType() === 'document',
    );
    await attack.goto(evilUrl);
    expect((await submitted).status()).toBe(403);
    await attack.close();
    expect(stack.desk.pending().map((p) => p.id)).toContain(item.id);
    // Node: the session cookie and CSRF token with a foreign Origin, then a foreign Host (DNS rebinding).
    const cookie = (await browser.context.cookies(stack.web.url))[0]!;
    const forged = await fetch(`${stack.web.url}/api/approvals/${item.id}`, {
      method: 'POST',
      headers: {
        cookie: `${cookie.name}=${cookie.value}`,
        'x-csrf-token': csrf,
        origin: 'http://evil.example',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ decision: 'allow' }),
    });
    expect(forged.status).toBe(403);
    const port = new URL(stack.web.url).port;
    expect(
      await rawGet(`${stack.web.url}/api/pending`, {
        host: `evil.example:${port}`,
        authorization: `Bearer ${stack.web.token}`,
      }),
    ).toBe(403);
    // Twin: the same request with the console's own Host goes through.
    expect(
      await rawGet(`${stack.web.url}/api/pending`, {
        host: `127.0.0.1:${port}`,
        authorization: `Bearer ${stack.web.token}`,
      }),
    ).toBe(200);
    expect(stack.desk.pending().map((p) => p.id)).toContain(item.id);
    // The question is still waiting, and the bearer API (a script) can answer it.
    const answered = await fetch(`${stack.web.url}/api/approvals/${item.id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.web.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ approved: false, by: 'script', reason: 'after the attack' }),
    });
    expect(answered.status).toBe(200);
    const d = await call;
    expect(d.action).toBe('deny');
    expect(d.approval).toMatchObject({ approved: false, by: 'script' });
  }, 60_000);

  it('a question whose path and command carry HTML shows them as text: nothing in them runs or renders', async () => {
    await page.goto(`${stack.web.url}/`);
    await page.waitForFunction(() => document.querySelector('[data-live]')?.textContent === 'connected');
    let dialogs = 0;
    page.on('dialog', (d) => {
      dialogs++;
      void d.dismiss();
    });
    const evilName = '<img src=x onerror=alert(1)>.md';
    const raised = firstValueFrom(
      stack.desk.events$.pipe(
        filter((e): e is Extract<DeskEvent, { type: 'raised' }> => e.type === 'raised'),
      ),
    );
    const call = stack.guard.check(
      { tool: 'bash', args: { command: `echo '<script>alert(2)</script>' > 'secrets/${evilName}'` } },
      stack.ctx('<b>agent</b>', 'sess-xss'),
    );
    const { item } = await raised;
    const article = page.locator(`#item-${item.id}`);
    await article.waitFor();
    expect(await article.locator('h3').textContent()).toContain('<b>agent</b>');
    expect(await article.locator('.command').textContent()).toContain('<script>alert(2)</script>');
    expect(await article.locator('table').textContent()).toContain(evilName);
    expect(await page.evaluate(() => document.querySelectorAll('main img, main script, main b').length)).toBe(
      0,
    );
    // The same on a fresh render by the server (not through the live stream).
    await page.reload();
    await article.waitFor();
    expect(await page.evaluate(() => document.querySelectorAll('main img, main script, main b').length)).toBe(
      0,
    );
    expect(dialogs).toBe(0);
    await stack.desk.respond(item.id, { approved: false, by: 'test' });
    expect((await call).action).toBe('deny');
  });

  it('logging out ends the session', async () => {
    await page.goto(`${stack.web.url}/`);
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(/login-ended/);
    const back = await page.goto(`${stack.web.url}/`);
    expect(back?.status()).toBe(401);
  });

  it('listening beyond loopback needs allowRemote, and warns', async () => {
    await expect(startConsole({ host: '0.0.0.0' })).rejects.toThrow(/host must be a loopback address/);
    const warnings: string[] = [];
    const web = await startConsole({
      host: '0.0.0.0',
      allowRemote: true,
      onWarning: (m) => warnings.push(m),
    });
    await web.close();
    expect(warnings.join('\n')).toMatch(/not loopback/);
    // A console with a desk but nothing else still serves (the interface is all it needs).
    const d = desk();
    const only = await startConsole({ desk: d });
    expect(
      (await fetch(`${only.url}/api/pending`, { headers: { authorization: `Bearer ${only.token}` } })).status,
    ).toBe(200);
    await only.close();
  });
});
