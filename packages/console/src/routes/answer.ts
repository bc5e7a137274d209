import type { ServerResponse } from 'node:http';
import { isToolgateError } from '@toolgate/core';
import { answerOf } from '../answerOf.js';
import type { ConsoleContext, Who } from '../context.js';
import { redirect, sendHtml, sendJson } from '../http.js';
import { html } from '../pages/html.js';
import { layout } from '../pages/layout.js';

/**
 * `POST /approvals/<id>` (a plain form: redirects back with a message) and `POST /api/approvals/<id>` (JSON:
 * 200, 400 malformed, 409 no longer waiting, 503 the desk's store failed). Nothing here approves by default.
 */
export async function answer(
  ctx: ConsoleContext,
  res: ServerResponse,
  id: string,
  body: Record<string, unknown>,
  who: Who,
  json: boolean,
): Promise<void> {
  const { desk, operator } = ctx.o;
  if (!desk) return sendJson(res, 404, { error: 'no approval desk is connected' });
  const a = answerOf(body, who.session ? operator : 'console-api', !who.session);
  if (typeof a === 'string') {
    if (json) return sendJson(res, 400, { error: a });
    const page = html`<h1>Not sent</h1><p class="bad" role="alert">${a}</p><p><a href="/">Back to the approvals</a></p>`;
    return sendHtml(res, 400, layout('approvals', 'Approvals', who.session?.csrf ?? '', page));
  }
  let ok: boolean;
  try {
    ok = await desk.respond(id, a);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // A malformed answer is the caller's (400); anything else is the desk's store failing (503). Either way
    // nothing was approved: the plugin denies at the deadline.
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
