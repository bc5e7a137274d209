import type { ServerResponse } from 'node:http';
import { COOKIE } from '../auth.js';
import type { ConsoleContext } from '../context.js';
import { sendHtml } from '../http.js';
import { loginNeeded } from '../pages/layout.js';

/** `GET /login?code=…`: spends a one-time code for a session cookie. */
export function login(ctx: ConsoleContext, url: URL, res: ServerResponse): void {
  const session = ctx.auth.login(url.searchParams.get('code'));
  if (!session) {
    sendHtml(res, 401, loginNeeded('This login link was already used, has expired, or is wrong.'));
    return;
  }
  // A page that moves on by itself rather than a redirect: a link followed from another site would carry
  // the redirect's request as cross-site, without the SameSite=Strict cookie just set. The code leaves the
  // address bar at once either way, and it is spent.
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'set-cookie': `${COOKIE}=${session.id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${Math.floor(ctx.o.sessionTtlMs / 1000)}`,
    refresh: '0; url=/',
  });
  res.end(
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=/"><title>Logged in</title></head><body><p>Logged in. <a href="/">Continue to the console</a>.</p></body></html>',
  );
}

/** The message the approvals page shows after a plain-form answer (`/?done=…`). */
export function flash(url: URL): string | undefined {
  const done = url.searchParams.get('done');
  if (done === 'allowed') return 'Allowed. The agent has its answer.';
  if (done === 'denied') return 'Denied. The agent has its answer.';
  if (done === 'gone')
    return 'That question is no longer waiting: it was answered elsewhere, timed out or was withdrawn.';
  return undefined;
}
