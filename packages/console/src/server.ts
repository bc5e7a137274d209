import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chainVerifier } from './auditData.js';
import { Auth, COOKIE, cookieOf, sameSecret } from './auth.js';
import type { ConsoleContext, Who } from './context.js';
import { parseBody, readBody, redirect, SECURITY_HEADERS, sendHtml, sendJson } from './http.js';
import { type ConsoleOptions, compileConsoleOptions, isLoopback } from './options.js';
import { approvalsPage } from './pages/approvalsPage.js';
import { layout, loginNeeded } from './pages/layout.js';
import { answer } from './routes/answer.js';
import { auditApi, auditRoute, recordRoute } from './routes/auditRoutes.js';
import { events } from './routes/events.js';
import { explainRoute } from './routes/explainRoute.js';
import { flash, login } from './routes/login.js';
import type { SseChannel } from './sse.js';

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

const forbidden = (res: ServerResponse, why: string) => sendJson(res, 403, { error: why });

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
  // Read once at start: serving an asset never touches the disk.
  const assets = {
    '/assets/console.js': ['text/javascript; charset=utf-8', readFileSync(new URL('console.js', ASSETS))],
    '/assets/console.css': ['text/css; charset=utf-8', readFileSync(new URL('console.css', ASSETS))],
  } as const;
  const channels = new Set<SseChannel>();
  let base = '';
  let allowedHosts = new Set<string>();
  const ctx: ConsoleContext = {
    o,
    auth,
    verify: o.audit ? chainVerifier(o.audit) : undefined,
    channels,
    loginLink: () => `${base}/login?code=${auth.newLoginCode()}`,
  };

  const authenticate = (req: IncomingMessage): Who | undefined => {
    if (req.headers.authorization !== undefined)
      return auth.tokenMatches(req.headers.authorization) ? {} : undefined;
    const session = auth.session(cookieOf(req.headers.cookie, COOKIE));
    return session ? { session } : undefined;
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const host = req.headers.host ?? '';
    // DNS rebinding: a page of evil.example resolved to 127.0.0.1 sends Host: evil.example.
    if (!allowedHosts.has(host)) return forbidden(res, 'wrong Host header');
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${host}`) return forbidden(res, 'cross-origin request');
    const url = new URL(req.url ?? '/', `http://${host}`);
    const path = url.pathname;
    if (req.method === 'GET' && path in assets) {
      const [type, body] = assets[path as keyof typeof assets];
      res.writeHead(200, { 'content-type': type });
      return void res.end(body);
    }
    if (req.method === 'GET' && path === '/login') return login(ctx, url, res);
    // Only /login may be reached from another site (a link in a chat or mail); nothing else is.
    const site = req.headers['sec-fetch-site'];
    if (site === 'cross-site' || site === 'same-site') return forbidden(res, 'cross-site request');

    const who = authenticate(req);
    if (!who) {
      if (path.startsWith('/api/'))
        return sendJson(
          res,
          401,
          { error: 'log in, or send Authorization: Bearer <token>' },
          { 'www-authenticate': 'Bearer' },
        );
      return sendHtml(res, 401, loginNeeded('You are not logged in, or your session ended.'));
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      if (req.method !== 'POST')
        return sendJson(res, 405, { error: 'use GET or POST' }, { allow: 'GET, POST' });
      const text = await readBody(req, MAX_BODY);
      if (text === null) return sendJson(res, 413, { error: `body larger than ${MAX_BODY} bytes` });
      const body = parseBody(req.headers['content-type'], text);
      if (!body) return sendJson(res, 400, { error: 'body must be JSON or a form' });
      // A cookie rides along on any request the browser makes: a state change needs the session's CSRF token
      // too (and an Origin, which every browser sends on a POST). The bearer token is no ambient credential
      // and needs neither.
      if (who.session) {
        const given =
          (req.headers['x-csrf-token'] as string | undefined) ??
          (typeof body._csrf === 'string' ? body._csrf : undefined);
        if (!sameSecret(given, who.session.csrf)) return forbidden(res, 'missing or wrong CSRF token');
        if (origin === undefined) return forbidden(res, 'a state change needs an Origin header');
      }
      return post(path, body, who, res);
    }
    const csrf = who.session?.csrf ?? '';
    switch (path) {
      case '/': {
        const page = approvalsPage(
          o.desk?.pending() ?? [],
          csrf,
          Date.now(),
          o.desk !== undefined,
          flash(url),
        );
        return sendHtml(res, 200, layout('approvals', 'Approvals', csrf, page));
      }
      case '/audit':
        return auditRoute(ctx, url, res, csrf);
      case '/audit/record':
        return recordRoute(ctx, url, res, csrf);
      case '/explain':
        return explainRoute(ctx, url, res, csrf);
      case '/login-ended':
        return sendHtml(res, 200, loginNeeded('You are logged out.'));
      case '/api/pending':
        return sendJson(res, 200, { pending: o.desk?.pending() ?? [] });
      case '/api/events':
        return events(ctx, url, res, who);
      case '/api/audit':
      case '/api/audit/verify':
        return auditApi(ctx, path, url, res);
      default:
        return sendJson(res, 404, { error: 'no such page' });
    }
  }

  function post(
    path: string,
    body: Record<string, unknown>,
    who: Who,
    res: ServerResponse,
  ): Promise<void> | void {
    const m = /^\/(api\/)?approvals\/([^/]+)$/.exec(path);
    if (m) return answer(ctx, res, decodeURIComponent(m[2]!), body, who, m[1] !== undefined);
    if (path === '/logout') {
      if (who.session) auth.logout(who.session.id);
      return redirect(res, '/login-ended', {
        'set-cookie': `${COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`,
      });
    }
    if (path === '/api/login-codes') {
      if (who.session) return forbidden(res, 'new login links need the bearer token');
      return sendJson(res, 201, { url: ctx.loginLink() });
    }
    return sendJson(res, 404, { error: 'no such endpoint' });
  }

  const server = createServer((req, res) => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
      else res.destroy();
      o.onWarning(`console: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const hostPart = o.host.includes(':') ? `[${o.host}]` : o.host;
  base = `http://${hostPart}:${port}`;
  allowedHosts = new Set([`${hostPart}:${port}`]);
  if (isLoopback(o.host))
    for (const h of ['127.0.0.1', 'localhost', '[::1]']) allowedHosts.add(`${h}:${port}`);

  return {
    url: base,
    token,
    loginUrl: ctx.loginLink,
    async close() {
      for (const c of channels) c.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Browsers keep connections open: without this, close() would wait for them.
      server.closeAllConnections();
      await closed;
    },
  };
}
