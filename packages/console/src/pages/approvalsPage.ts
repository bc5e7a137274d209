import type { DeskItem } from '@toolgate/approvals';
import { html, type Raw } from './html.js';

/** The scopes a person can give, in the words the page uses, and the `GrantScope` each one is. */
export const SCOPES: ReadonlyArray<{ value: 'once' | 'subtree' | 'directory'; label: string }> = [
  { value: 'once', label: 'Once (this call only)' },
  { value: 'subtree', label: 'This session: the folder and everything below it, or the host' },
  { value: 'directory', label: 'This session: files directly in this folder, or the host' },
];

function seconds(ms: number): string {
  return `${Math.max(0, Math.ceil(ms / 1000))} s`;
}

function ruleOf(item: DeskItem['items'][number]): Raw {
  if (!item.rule) return html`<span class="muted">(no rule: ${item.code})</span>`;
  const r = item.rule;
  return html`<code>${r.pattern}</code> → ${r.access}${r.source ? html` <span class="muted">(${r.source})</span>` : ''}`;
}

/** One pending question as an `article` with its own form: readable and answerable without the script. */
export function renderItem(item: DeskItem, csrf: string, now: number): Raw {
  const hid = `q-${item.id}`;
  return html`<article class="item" id="item-${item.id}" data-id="${item.id}" aria-labelledby="${hid}">
<h3 id="${hid}"><code>${item.tool}</code> · agent <strong>${item.agentId}</strong> · session <code>${item.sessionId}</code></h3>
<p class="deadline">Denied automatically in <span data-deadline="${item.deadline}">${seconds(item.deadline - now)}</span> if nobody answers.${item.origin ? html` Raised by ${item.origin}.` : ''}</p>
${item.command !== undefined ? html`<p>Command: <code class="command">${item.command}</code></p>` : ''}
<table><caption>What needs approval</caption>
<thead><tr><th scope="col">Operation</th><th scope="col">Path (as written → where it lands)</th><th scope="col">Rule</th><th scope="col">Why</th></tr></thead>
<tbody>${item.items.map(
    (i) =>
      html`<tr><td>${i.op}${i.scope === 'subtree' ? ' (subtree)' : ''}</td><td><code>${i.raw}</code>${i.realPath !== null && i.realPath !== i.raw ? html` → <code>${i.realPath}</code>` : ''}${i.realPath === null ? html` <em>(uncertain)</em>` : ''}</td><td>${ruleOf(i)}</td><td>${i.code}: ${i.reason}</td></tr>`,
  )}${item.hosts.map(
    (h) =>
      html`<tr><td>${h.method} (network)</td><td><code>${h.raw}</code>${h.host ? html` → <code>${h.host}${h.port !== undefined ? `:${h.port}` : ''}</code>` : ''}</td><td>${h.rule ?? html`<span class="muted">(no rule)</span>`}</td><td>${h.code}: ${h.reason}</td></tr>`,
  )}</tbody></table>
<details><summary>The call as analysed (${item.accesses.length} access${item.accesses.length === 1 ? '' : 'es'})</summary>
<p>Working directory <code>${item.cwd}</code></p>
<ul>${item.accesses.map(
    (a) =>
      html`<li>${a.op} <code>${a.raw}</code> → <code>${a.realPath ?? `(uncertain: ${a.reason ?? 'unknown'})`}</code> <span class="muted">via ${a.origin}</span></li>`,
  )}</ul>
<pre tabindex="0" aria-label="The call's arguments">${item.args}</pre></details>
<form method="post" action="/approvals/${encodeURIComponent(item.id)}" class="answer">
<input type="hidden" name="_csrf" value="${csrf}">
<div class="field"><label for="scope-${item.id}">Scope of an approval</label>
<select id="scope-${item.id}" name="scope">${SCOPES.map((s) => html`<option value="${s.value}">${s.label}</option>`)}</select></div>
<div class="field"><label for="reason-${item.id}">Reason (recorded in the audit trail)</label>
<input id="reason-${item.id}" name="reason" type="text" maxlength="500" autocomplete="off"></div>
<div class="buttons"><button type="submit" name="decision" value="allow" class="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="deny">Deny</button></div>
<p class="status" role="status"></p>
</form>
</article>`;
}

export function approvalsPage(
  items: readonly DeskItem[],
  csrf: string,
  now: number,
  hasDesk: boolean,
  flash?: string,
): Raw {
  return html`<h1>Approvals</h1>
${flash ? html`<p class="flash" role="status">${flash}</p>` : ''}
${hasDesk ? '' : html`<p class="muted">No approval desk is connected: start the console with a gateway (<code>toolgate mcp --console</code>) or a fleet desk to answer questions here.</p>`}
<div id="announce" class="visually-hidden" aria-live="polite" aria-atomic="true"></div>
<p id="live-state" class="muted">Live updates: <span data-live>connecting…</span></p>
<section aria-labelledby="pending-h"><h2 id="pending-h">Waiting for an answer (<span id="pending-count">${items.length}</span>)</h2>
<p class="empty${items.length ? ' hidden' : ''}" id="empty">Nothing is waiting.</p>
<div id="pending">${items.map((i) => renderItem(i, csrf, now))}</div></section>`;
}
