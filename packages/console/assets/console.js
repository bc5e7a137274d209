// toolgate console: the live parts of the server-rendered pages (no framework, no build step).
// Pages work without this file (forms post and redirect); with it, approvals and decisions arrive live,
// answers are sent without a reload, and deadlines count down.

(() => {
  const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';
  const page = document.body.dataset.page;

  const setLive = (text) => {
    for (const el of document.querySelectorAll('[data-live]')) el.textContent = text;
  };
  const announce = (text) => {
    const el = document.getElementById('announce');
    if (el) el.textContent = text;
  };

  // ---- approvals ---------------------------------------------------------------------------------------
  const pending = document.getElementById('pending');

  const refreshCount = () => {
    if (!pending) return;
    const n = pending.querySelectorAll('article.item').length;
    const count = document.getElementById('pending-count');
    if (count) count.textContent = String(n);
    document.getElementById('empty')?.classList.toggle('hidden', n > 0);
  };

  /** Removes a question; keeps keyboard focus in the list when the focused control goes away. */
  const removeItem = (id) => {
    const el = document.getElementById(`item-${id}`);
    if (!el) return false;
    const hadFocus = el.contains(document.activeElement);
    const next = el.nextElementSibling ?? el.previousElementSibling;
    el.remove();
    refreshCount();
    if (hadFocus) {
      const target = next?.querySelector('select, input, button') ?? document.getElementById('pending-h');
      if (target instanceof HTMLElement) {
        if (!target.hasAttribute('tabindex') && target.tagName === 'H2')
          target.setAttribute('tabindex', '-1');
        target.focus();
      }
    }
    return true;
  };

  const addItem = (item, html, quiet) => {
    if (!pending || !html || document.getElementById(`item-${item.id}`)) return;
    const t = document.createElement('template');
    t.innerHTML = html; // server-rendered and escaped; the CSP blocks any script in it anyway
    const el = t.content.firstElementChild;
    if (!el) return;
    pending.append(el);
    wireForm(el.querySelector('form.answer'));
    refreshCount();
    if (!quiet)
      announce(`New approval waiting: ${item.tool} for agent ${item.agentId}, session ${item.sessionId}.`);
  };

  const wireForm = (form) => {
    if (!form) return;
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const decision = event.submitter?.value;
      if (decision !== 'allow' && decision !== 'deny') return;
      const article = form.closest('article.item');
      const id = article?.dataset.id;
      const status = form.querySelector('.status');
      const data = new FormData(form);
      for (const b of form.querySelectorAll('button')) b.disabled = true;
      if (status) status.textContent = 'Sending…';
      try {
        const res = await fetch(`/api/approvals/${encodeURIComponent(id)}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
          body: JSON.stringify({ decision, scope: data.get('scope'), reason: data.get('reason') ?? '' }),
          credentials: 'same-origin',
        });
        const body = await res.json().catch(() => ({}));
        if (res.ok) {
          announce(
            `${decision === 'allow' ? 'Allowed' : 'Denied'}: ${article.querySelector('h3')?.textContent ?? id}.`,
          );
          removeItem(id);
        } else if (res.status === 409) {
          announce('That question is no longer waiting: answered elsewhere, timed out or withdrawn.');
          removeItem(id);
        } else {
          if (status) status.textContent = `Not sent: ${body.error ?? res.status}`;
          for (const b of form.querySelectorAll('button')) b.disabled = false;
        }
      } catch (error) {
        if (status) status.textContent = `Not sent: ${error}`;
        for (const b of form.querySelectorAll('button')) b.disabled = false;
      }
    });
  };

  for (const form of document.querySelectorAll('form.answer')) wireForm(form);

  // Deadlines count down; at zero the plugin denies and a `settled` event removes the question.
  const tick = () => {
    const now = Date.now();
    for (const el of document.querySelectorAll('[data-deadline]')) {
      const left = Math.ceil((Number(el.dataset.deadline) - now) / 1000);
      el.textContent = left > 0 ? `${left} s` : 'now (denied)';
      el.closest('article')?.classList.toggle('urgent', left <= 15);
    }
  };
  if (pending) {
    tick();
    setInterval(tick, 1000);
  }

  // ---- live decisions ------------------------------------------------------------------------------------
  const liveBody = document.querySelector('#live-decisions tbody');
  const cell = (tr, text, code) => {
    const td = document.createElement('td');
    if (code) {
      const c = document.createElement('code');
      c.textContent = text;
      td.append(c);
    } else td.textContent = text;
    tr.append(td);
  };
  const addDecisions = (batch, dropped) => {
    if (!liveBody) return;
    for (const d of batch) {
      const tr = document.createElement('tr');
      tr.className = `d-${d.action}`;
      cell(tr, new Date(d.time).toISOString().slice(11, 23));
      cell(tr, d.action);
      cell(tr, d.tool, true);
      cell(tr, d.agentId);
      cell(tr, d.sessionId, true);
      cell(tr, d.path ?? '', true);
      cell(tr, `${d.code ?? ''} ${d.reason ?? ''}${d.approvedBy ? ` (by ${d.approvedBy})` : ''}`.trim());
      liveBody.prepend(tr);
    }
    while (liveBody.rows.length > 50) liveBody.deleteRow(-1);
    if (dropped > 0) {
      const el = document.getElementById('live-dropped');
      if (el)
        el.textContent = `${dropped} decision(s) were not shown (the stream was busier than this page).`;
    }
  };

  // ---- one event stream per page ----------------------------------------------------------------------
  const view = page === 'approvals' ? 'approvals' : page === 'audit' && liveBody ? 'decisions' : undefined;
  if (view) {
    const source = new EventSource(`/api/events?view=${view}`);
    source.addEventListener('open', () => setLive('connected'));
    source.addEventListener('error', () => setLive('reconnecting…'));
    source.addEventListener('pending', (e) => {
      // After a reconnect: drop what settled while the stream was down.
      const { items } = JSON.parse(e.data);
      const ids = new Set(items.map((x) => x.item.id));
      for (const el of document.querySelectorAll('article.item'))
        if (!ids.has(el.dataset.id)) removeItem(el.dataset.id);
      for (const x of items) addItem(x.item, x.html, true);
    });
    source.addEventListener('raised', (e) => {
      const { item, html } = JSON.parse(e.data);
      addItem(item, html);
    });
    source.addEventListener('settled', (e) => {
      const s = JSON.parse(e.data);
      if (removeItem(s.id)) {
        const how =
          s.cause === 'answered'
            ? `answered by ${s.by ?? 'someone'} (${s.approved ? 'allowed' : 'denied'})`
            : s.cause === 'timeout'
              ? 'timed out (denied)'
              : 'withdrawn';
        announce(`A question was ${how}.`);
      }
    });
    source.addEventListener('decisions', (e) => {
      const { batch, dropped } = JSON.parse(e.data);
      addDecisions(batch, dropped);
    });
  }
})();
