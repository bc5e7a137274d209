import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DeskEvent } from '@toolgate/approvals';
import { isToolgateError } from '@toolgate/core';
import type { Subscription } from 'rxjs';
import { answerOf } from './answerOf.js';
import { auditView, chainVerifier, filterOf, findRecord } from './auditData.js';
import { Auth, COOKIE, cookieOf, type Session, sameSecret } from './auth.js';
import { parseBody, readBody, redirect, SECURITY_HEADERS, sendHtml, sendJson } from './http.js';
import { type ConsoleOptions, compileConsoleOptions, type ExplainInput, isLoopback } from './options.js';
import { approvalsPage, renderItem } from './pages/approvalsPage.js';
import { auditPage, recordPage } from './pages/auditPage.js';
import { type ExplainForm, explainPage } from './pages/explainPage.js';
import { html } from './pages/html.js';
import { layout, loginNeeded } from './pages/layout.js';
import { openSse, type SseChannel } from './sse.js';

export interface WebConsole {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The bearer token of the JSON/SSE API. */
  readonly token: string;
  /** A fresh one-time login link (`<url>/login?code=…`). */
  loginUrl(): string;
  close(): Promise<void>;
}

const ASSETS = new URL('../assets/', import.meta.url);
const MAX_BODY = 64 * 1024;

interface Who {
  /** Present for a browser session; absent for the bearer token. */
  session?: Session;
}

/**
 * Starts the web console: pending approvals answered live, the decision stream, the audit trail with its
 * chain verification and denial statistics, and `explain` — on loopback, behind a bearer token (API) and
 * one-time login links (browsers).
 *
 * @example
 * ```ts
 * import { approvals, desk } from '@toolgate/approvals';
 * import { decisionStream, startConsole } from '@toolgate/console';
 * const d = desk();
 * const stream = decisionStream();
 * const guard = createGuard({ plugins: [myPolicy(), auditLog({ file, level: 'all' }), approvals({ strategy: d }), stream] });
 * const web = await startConsole({ desk: d, decisions: stream, audit: { file } });
 * console.error(`toolgate console: ${web.loginUrl()}`);
 * ```
 */
export async function startConsole(options: ConsoleOptions): Promise<WebConsole> {
  const o = compileConsoleOptions(options);
  const token = o.token ?? Auth.newToken();
  const auth = new Auth({
    token,
    loginCodeTtlMs: o.loginCodeTtlMs,
    sessionTtlMs: o.sessionTtlMs,
    now: o.now,
  });
  const assets = {
    '/assets/console.js': ['text/javascript; charset=utf-8', readFileSync(new URL('console.js', ASSETS))],
    '/assets/console.css': ['text/css; charset=utf-8', readFileSync(new URL('console.css', ASSETS))],
  } as const;
  const verify = o.audit ? chainVerifier(o.audit) : undefined;
  const channels = new Set<SseChannel>();
  let allowedHosts = new Set<string>();

  const server = createServer((req, res) => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
      else res.destroy();
      o.onWarning(`console: ${error instanceof Error ? error.message : String(error)}`);
    });
  });

  const forbidden = (res: ServerResponse, why: string) => sendJson(res, 403, { error: why });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const host = req.headers.host ?? '';
    // DNS rebinding: a page of evil.example resolved to 127.0.0.1 sends Host: evil.example.
    if (!allowedHosts.has(host)) return forbidden(res, 'wrong Host header');
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${host}`) return forbidden(res, 'cross-origin request');
    const url = new URL(req.url ?? '/', `http://${host}`);
    const path = url.pathname;
    const site = req.headers['sec-fetch-site'];
    if (req.method === 'GET' && path in assets) {
      const [type, body] = assets[path as keyof typeof assets];
      res.writeHead(200, { 'content-type': type });
      return void res.end(body);
    }
    if (req.method === 'GET' && path === '/login') return login(url, res);
    // Only /login may be reached from another site (a link in a chat or mail); nothing else is.
    if (site === 'cross-site' || site === 'same-site') return forbidden(res, 'cross-site request');

    const who = authenticate(req);
    const api = path.startsWith('/api/');
    if (!who) {
      if (api)
        return sendJson(
          res,
          401,
          { error: 'log in, or send Authorization: Bearer <token>' },
          { 'www-authenticate': 'Bearer' },
        );
      return sendHtml(res, 401, loginNeeded('You are not logged in, or your session ended.'));
    }
    const state = req.method !== 'GET' && req.method !== 'HEAD';
    let body: Record<string, unknown> = {};
    if (state) {
      if (req.method !== 'POST')
        return sendJson(res, 405, { error: 'use GET or POST' }, { allow: 'GET, POST' });
      const text = await readBody(req, MAX_BODY);
      if (text === null) return sendJson(res, 413, { error: `body larger than ${MAX_BODY} bytes` });
      const parsed = parseBody(req.headers['content-type'], text);
      if (!parsed) return sendJson(res, 400, { error: 'body must be JSON or a form' });
      body = parsed;
      // A cookie rides along on any request the browser makes: a state change needs the session's CSRF
      // token too (and an Origin, which every browser sends on a POST). The bearer token is no ambient
      // credential and needs neither.
      if (who.session) {
        const given =
          (req.headers['x-csrf-token'] as string | undefined) ??
          (typeof body._csrf === 'string' ? body._csrf : undefined);
        if (!sameSecret(given, who.session.csrf)) return forbidden(res, 'missing or wrong CSRF token');
        if (origin === undefined) return forbidden(res, 'a state change needs an Origin header');
      }
    }
    const csrf = who.session?.csrf ?? '';
    const m = /^\/(api\/)?approvals\/([^/]+)$/.exec(path);
    if (m && req.method === 'POST')
      return answer(res, decodeURIComponent(m[2]!), body, who, m[1] !== undefined);
    if (req.method === 'POST' && path === '/logout') {
      if (who.session) auth.logout(who.session.id);
      return redirect(res, '/login-ended', {
        'set-cookie': `${COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`,
      });
    }
    if (req.method === 'POST' && path === '/api/login-codes') {
      if (who.session) return forbidden(res, 'new login links need the bearer token');
      return sendJson(res, 201, { url: loginLink() });
    }
    if (req.method !== 'GET') return sendJson(res, 404, { error: 'no such endpoint' });
    switch (path) {
      case '/':
        return sendHtml(
          res,
          200,
          layout(
            'approvals',
            'Approvals',
            csrf,
            approvalsPage(o.desk?.pending() ?? [], csrf, Date.now(), o.desk !== undefined, flash(url)),
          ),
        );
      case '/audit':
        return auditRoute(url, res, csrf);
      case '/audit/record': {
        const id = url.searchParams.get('id') ?? '';
        const record = o.audit && id ? await findRecord(o.audit, id) : undefined;
        return sendHtml(res, record ? 200 : 404, layout('audit', 'Record', csrf, recordPage(id, record)));
      }
      case '/explain':
        return explainRoute(url, res, csrf);
      case '/login-ended':
        return sendHtml(res, 200, loginNeeded('You are logged out.'));
      case '/api/pending':
        return sendJson(res, 200, { pending: o.desk?.pending() ?? [] });
      case '/api/events':
        return events(url, res, who);
      case '/api/audit': {
        if (!o.audit) return sendJson(res, 404, { error: 'no audit trail configured' });
        const v = await auditView(o.audit, filterOf(url.searchParams));
        return sendJson(res, 200, v);
      }
      case '/api/audit/verify':
        return verify
          ? sendJson(res, 200, await verify())
          : sendJson(res, 404, { error: 'no audit trail configured' });
      default:
        return sendJson(res, 404, { error: 'no such page' });
    }
  }

  function authenticate(req: IncomingMessage): Who | undefined {
    if (req.headers.authorization !== undefined)
      return auth.tokenMatches(req.headers.authorization) ? {} : undefined;
    const session = auth.session(cookieOf(req.headers.cookie, COOKIE));
    return session ? { session } : undefined;
  }

  function login(url: URL, res: ServerResponse): void {
    const session = auth.login(url.searchParams.get('code'));
    if (!session) {
      sendHtml(res, 401, loginNeeded('This login link was already used, has expired, or is wrong.'));
      return;
    }
    // A page that moves on by itself rather than a redirect: a link followed from another site would carry
    // the redirect's request as cross-site, without the SameSite=Strict cookie just set. The code leaves
    // the address bar at once either way, and it is spent.
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'set-cookie': `${COOKIE}=${session.id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${Math.floor(o.sessionTtlMs / 1000)}`,
      refresh: '0; url=/',
    });
    res.end(
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=/"><title>Logged in</title></head><body><p>Logged in. <a href="/">Continue to the console</a>.</p></body></html>',
    );
  }

  function flash(url: URL): string | undefined {
    const done = url.searchParams.get('done');
    if (done === 'allowed') return 'Allowed. The agent has its answer.';
    if (done === 'denied') return 'Denied. The agent has its answer.';
    if (done === 'gone')
      return 'That question is no longer waiting: it was answered elsewhere, timed out or was withdrawn.';
    return undefined;
  }

  async function answer(
    res: ServerResponse,
    id: string,
    body: Record<string, unknown>,
    who: Who,
    json: boolean,
  ): Promise<void> {
    if (!o.desk) return sendJson(res, 404, { error: 'no approval desk is connected' });
    const a = answerOf(body, who.session ? o.operator : 'console-api', !who.session);
    if (typeof a === 'string')
      return json
        ? sendJson(res, 400, { error: a })
        : sendHtml(
            res,
            400,
            layout(
              'approvals',
              'Approvals',
              who.session?.csrf ?? '',
              html`<h1>Not sent</h1><p class="bad" role="alert">${a}</p><p><a href="/">Back to the approvals</a></p>`,
            ),
          );
    let ok: boolean;
    try {
      ok = await o.desk.respond(id, a);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // A malformed answer is the caller's (400); anything else is the desk's store failing (503). Either
      // way nothing was approved: the plugin denies at the deadline.
      if (isToolgateError(error)) return sendJson(res, 400, { error: message });
      return sendJson(res, 503, { error: `the approval desk could not take the answer: ${message}` });
    }
    if (json)
      return ok
        ? sendJson(res, 200, { ok: true, approved: a.approved })
        : sendJson(res, 409, {
            error: 'no such question is waiting: answered elsewhere, timed out or withdrawn',
          });
    return redirect(res, `/?done=${ok ? (a.approved ? 'allowed' : 'denied') : 'gone'}`);
  }

  async function auditRoute(url: URL, res: ServerResponse, csrf: string): Promise<void> {
    const filter = filterOf(url.searchParams);
    if (!o.audit)
      return sendHtml(
        res,
        200,
        layout(
          'audit',
          'Decisions & audit',
          csrf,
          auditPage(filter, undefined, undefined, o.decisions !== undefined),
        ),
      );
    let view: Awaited<ReturnType<typeof auditView>> | undefined;
    let error: string | undefined;
    try {
      view = await auditView(o.audit, filter);
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
    const report = await verify!();
    return sendHtml(
      res,
      200,
      layout(
        'audit',
        'Decisions & audit',
        csrf,
        auditPage(filter, view, report, o.decisions !== undefined, error),
      ),
    );
  }

  async function explainRoute(url: URL, res: ServerResponse, csrf: string): Promise<void> {
    const q = url.searchParams;
    const form: ExplainForm = {
      path: q.get('path') ?? '',
      op: q.get('op') === 'write' ? 'write' : 'read',
      call: q.get('call') ?? '',
    };
    let input: ExplainInput | undefined;
    let error: string | undefined;
    if (form.call.trim() !== '') {
      try {
        const v = JSON.parse(form.call) as { tool?: unknown; args?: unknown };
        if (v === null || typeof v !== 'object' || typeof v.tool !== 'string' || v.tool === '')
          throw new Error('the call needs a "tool" name');
        if (v.args !== undefined && (v.args === null || typeof v.args !== 'object' || Array.isArray(v.args)))
          throw new Error('"args" must be an object');
        input = { call: { tool: v.tool, args: (v.args ?? {}) as Record<string, unknown> } };
      } catch (e) {
        error = `The call is not valid: ${e instanceof Error ? e.message : String(e)}`;
      }
    } else if (form.path.trim() !== '') input = { path: form.path.trim(), op: form.op };
    let result: Awaited<ReturnType<NonNullable<typeof o.explain>>> | undefined;
    if (input && o.explain) {
      try {
        result = await o.explain(input);
      } catch (e) {
        error = `explain failed: ${e instanceof Error ? e.message : String(e)}`;
      }
    }
    return sendHtml(
      res,
      200,
      layout('explain', 'Explain', csrf, explainPage(o.explain !== undefined, form, result, error)),
    );
  }

  function events(url: URL, res: ServerResponse, who: Who): void {
    const view = url.searchParams.get('view');
    const channel = openSse(res);
    channels.add(channel);
    const subs: Array<Subscription | (() => void)> = [];
    if (view !== 'decisions' && o.desk) {
      const csrf = who.session?.csrf;
      subs.push(
        o.desk.events$.subscribe((e: DeskEvent) => {
          // Off the asking path: rendering and writing happen after the desk's caller has moved on.
          setImmediate(() => {
            if (e.type === 'raised')
              channel.send('raised', {
                item: e.item,
                ...(csrf !== undefined ? { html: renderItem(e.item, csrf, Date.now()).html } : {}),
              });
            else channel.send('settled', e);
          });
        }),
      );
      // Subscribed first, then the snapshot: the page drops duplicates by id.
      // A question raised between the page's render and this subscription is in this snapshot.
      channel.send('pending', {
        items: o.desk.pending().map((item) => ({
          item,
          ...(csrf !== undefined ? { html: renderItem(item, csrf, Date.now()).html } : {}),
        })),
      });
    }
    if (view !== 'approvals' && o.decisions) {
      channel.send('decisions', { batch: o.decisions.recent(), dropped: 0 });
      subs.push(
        o.decisions.subscribe((batch, dropped) =>
          channel.send('decisions', { batch, dropped: dropped + channel.dropped }),
        ),
      );
    }
    res.on('close', () => {
      channels.delete(channel);
      for (const s of subs) typeof s === 'function' ? s() : s.unsubscribe();
    });
  }

  function loginLink(): string {
    return `${base}/login?code=${auth.newLoginCode()}`;
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const hostPart = o.host.includes(':') ? `[${o.host}]` : o.host;
  const base = `http://${hostPart}:${port}`;
  allowedHosts = new Set([`${hostPart}:${port}`]);
  if (isLoopback(o.host))
    for (const h of ['127.0.0.1', 'localhost', '[::1]']) allowedHosts.add(`${h}:${port}`);

  return {
    url: base,
    token,
    loginUrl: loginLink,
    async close() {
      for (const c of channels) c.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}
