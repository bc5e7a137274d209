import type { ServerResponse } from 'node:http';
import type { ConsoleContext } from '../context.js';
import { sendHtml } from '../http.js';
import type { ExplainInput, ExplainView } from '../options.js';
import { type ExplainForm, explainPage } from '../pages/explainPage.js';
import { layout } from '../pages/layout.js';

/** A call typed as JSON, checked: `{tool, args?}` or an error message. */
function parseCall(text: string): ExplainInput | string {
  try {
    const v = JSON.parse(text) as { tool?: unknown; args?: unknown };
    if (v === null || typeof v !== 'object' || typeof v.tool !== 'string' || v.tool === '')
      return 'the call needs a "tool" name';
    if (v.args !== undefined && (v.args === null || typeof v.args !== 'object' || Array.isArray(v.args)))
      return '"args" must be an object';
    return { call: { tool: v.tool, args: (v.args ?? {}) as Record<string, unknown> } };
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** `GET /explain?path=&op=` or `?call=`: no side effect (explain runs on a guard that records nothing). */
export async function explainRoute(
  ctx: ConsoleContext,
  url: URL,
  res: ServerResponse,
  csrf: string,
): Promise<void> {
  const q = url.searchParams;
  const form: ExplainForm = {
    path: q.get('path') ?? '',
    op: q.get('op') === 'write' ? 'write' : 'read',
    call: q.get('call') ?? '',
  };
  let input: ExplainInput | undefined;
  let error: string | undefined;
  if (form.call.trim() !== '') {
    const parsed = parseCall(form.call);
    if (typeof parsed === 'string') error = `The call is not valid: ${parsed}`;
    else input = parsed;
  } else if (form.path.trim() !== '') input = { path: form.path.trim(), op: form.op };
  let result: ExplainView | undefined;
  if (input && ctx.o.explain) {
    try {
      result = await ctx.o.explain(input);
    } catch (e) {
      error = `explain failed: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
  return sendHtml(
    res,
    200,
    layout('explain', 'Explain', csrf, explainPage(ctx.o.explain !== undefined, form, result, error)),
  );
}
