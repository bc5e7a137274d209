import type { ServerResponse } from 'node:http';
import { auditView, filterOf, findRecord } from '../auditData.js';
import type { ConsoleContext } from '../context.js';
import { sendHtml, sendJson } from '../http.js';
import { auditPage, recordPage } from '../pages/auditPage.js';
import { layout } from '../pages/layout.js';

/** `GET /audit`: live decisions, the trail filtered, its chain status and denial charts. */
export async function auditRoute(
  ctx: ConsoleContext,
  url: URL,
  res: ServerResponse,
  csrf: string,
): Promise<void> {
  const { audit, decisions } = ctx.o;
  const filter = filterOf(url.searchParams);
  const page = (
    view?: Awaited<ReturnType<typeof auditView>>,
    report?: Awaited<ReturnType<NonNullable<ConsoleContext['verify']>>>,
    error?: string,
  ) =>
    sendHtml(
      res,
      200,
      layout(
        'audit',
        'Decisions & audit',
        csrf,
        auditPage(filter, view, report, decisions !== undefined, error),
      ),
    );
  if (!audit || !ctx.verify) return page();
  let view: Awaited<ReturnType<typeof auditView>> | undefined;
  let error: string | undefined;
  try {
    view = await auditView(audit, filter);
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  return page(view, await ctx.verify(), error);
}

/** `GET /audit/record?id=<decision id>`. */
export async function recordRoute(
  ctx: ConsoleContext,
  url: URL,
  res: ServerResponse,
  csrf: string,
): Promise<void> {
  const id = url.searchParams.get('id') ?? '';
  const record = ctx.o.audit && id ? await findRecord(ctx.o.audit, id) : undefined;
  return sendHtml(res, record ? 200 : 404, layout('audit', 'Record', csrf, recordPage(id, record)));
}

/** `GET /api/audit` and `GET /api/audit/verify`. */
export async function auditApi(
  ctx: ConsoleContext,
  path: string,
  url: URL,
  res: ServerResponse,
): Promise<void> {
  if (!ctx.o.audit || !ctx.verify) return sendJson(res, 404, { error: 'no audit trail configured' });
  if (path === '/api/audit/verify') return sendJson(res, 200, await ctx.verify());
  return sendJson(res, 200, await auditView(ctx.o.audit, filterOf(url.searchParams)));
}
