import type { ServerResponse } from 'node:http';
import type { DeskEvent, DeskItem } from '@toolgate/approvals';
import type { Subscription } from 'rxjs';
import type { ConsoleContext, Who } from '../context.js';
import { renderItem } from '../pages/approvalsPage.js';
import { openSse } from '../sse.js';

/**
 * `GET /api/events`: server-sent events. `pending` (a snapshot, after subscribing), `raised` and `settled`
 * (the desk), `decisions` (batches of the live stream). A browser session gets each question's HTML too,
 * rendered with its own CSRF token; a script gets the JSON.
 */
export function events(ctx: ConsoleContext, url: URL, res: ServerResponse, who: Who): void {
  const { desk, decisions } = ctx.o;
  const view = url.searchParams.get('view');
  const channel = openSse(res);
  ctx.channels.add(channel);
  const subs: Array<Subscription | (() => void)> = [];
  const csrf = who.session?.csrf;
  const withHtml = (item: DeskItem) => ({
    item,
    ...(csrf !== undefined ? { html: renderItem(item, csrf, Date.now()).html } : {}),
  });
  if (view !== 'decisions' && desk) {
    subs.push(
      desk.events$.subscribe((e: DeskEvent) => {
        // Off the asking path: rendering and writing happen after the desk's caller has moved on.
        setImmediate(() => {
          if (e.type === 'raised') channel.send('raised', withHtml(e.item));
          else channel.send('settled', e);
        });
      }),
    );
    // Subscribed first, then the snapshot (the page drops duplicates by id): a question raised between the
    // page's render and this subscription is in it.
    channel.send('pending', { items: desk.pending().map(withHtml) });
  }
  if (view !== 'approvals' && decisions) {
    channel.send('decisions', { batch: decisions.recent(), dropped: 0 });
    let reported = 0;
    subs.push(
      decisions.subscribe((batch, dropped) => {
        // What the stream dropped, plus what this connection dropped since its last report.
        const mine = channel.dropped - reported;
        reported = channel.dropped;
        channel.send('decisions', { batch, dropped: dropped + mine });
      }),
    );
  }
  res.on('close', () => {
    ctx.channels.delete(channel);
    for (const s of subs) typeof s === 'function' ? s() : s.unsubscribe();
  });
}
