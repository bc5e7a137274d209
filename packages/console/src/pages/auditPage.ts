import type { AuditRecord, ChainReport } from '@toolgate/audit-log';
import type { AuditFilter, AuditView } from '../auditData.js';
import { barChart } from './barChart.js';
import { html, type Raw } from './html.js';

function verifyStatus(report: ChainReport | { missing: true } | undefined): Raw {
  if (!report) return html`<p>No audit trail is configured.</p>`;
  if ('missing' in report) return html`<p class="warn">The trail file does not exist yet.</p>`;
  if (report.ok)
    return html`<p class="ok" id="verify">Hash chain verified: ${report.records} records in ${report.files.length} file(s)${report.fromGenesis ? ', from the first record' : ' (older records were rotated away; the oldest kept one is trusted as a start)'}${report.tornTail ? html`; the last line was cut short by a crash mid-write (never acknowledged)` : ''}.</p>`;
  const b = report.broken!;
  return html`<p class="bad" id="verify" role="alert">Hash chain BROKEN at ${b.file}:${b.line}: ${b.reason}. Records after it cannot be trusted.</p>`;
}

function field(label: string, name: keyof AuditFilter, value: string | undefined, hint?: string): Raw {
  return html`<div class="field"><label for="f-${name}">${label}</label><input id="f-${name}" name="${name}" type="text" value="${value ?? ''}"${hint ? html` placeholder="${hint}"` : ''}></div>`;
}

function row(r: AuditRecord): Raw {
  const path = r.attemptedPath ?? r.paths?.[0]?.realPath ?? r.paths?.[0]?.path ?? '';
  return html`<tr class="d-${r.decision}"><td><time datetime="${r.timestamp}">${r.timestamp.replace('T', ' ').replace('Z', '')}</time></td><td>${r.decision}</td><td><code>${r.toolId}</code></td><td>${r.agentId}</td><td><code>${r.sessionId}</code></td><td><code>${path}</code></td><td>${r.code ?? ''} ${r.reason}${r.approval ? html` <span class="muted">(by ${r.approval.by}${r.approval.reason && r.approval.reason !== r.reason ? `: ${r.approval.reason}` : ''})</span>` : ''}</td><td><a href="/audit/record?id=${encodeURIComponent(r.decisionId)}">Open<span class="visually-hidden"> record ${r.decisionId}</span></a></td></tr>`;
}

export function auditPage(
  filter: AuditFilter,
  view: AuditView | undefined,
  report: ChainReport | { missing: true } | undefined,
  live: boolean,
  error?: string,
): Raw {
  return html`<h1>Decisions &amp; audit</h1>
${
  live
    ? html`<section aria-labelledby="live-h"><h2 id="live-h">Live decisions</h2>
<p class="muted">The latest decisions of the guard this console runs beside, as they happen (<span data-live>connecting…</span>).</p>
<table id="live-decisions"><thead><tr><th scope="col">Time</th><th scope="col">Decision</th><th scope="col">Tool</th><th scope="col">Agent</th><th scope="col">Session</th><th scope="col">Path</th><th scope="col">Reason</th></tr></thead><tbody></tbody></table>
<p id="live-dropped" class="muted" aria-live="polite"></p></section>`
    : ''
}
<section aria-labelledby="trail-h"><h2 id="trail-h">Audit trail</h2>
${verifyStatus(report)}
<form method="get" action="/audit" class="filters" role="search" aria-label="Filter the audit trail">
${field('Agent', 'agent', filter.agent)}
${field('Session', 'session', filter.session)}
${field('Tool', 'tool', filter.tool)}
<div class="field"><label for="f-decision">Decision</label><select id="f-decision" name="decision">
${['', 'allow', 'deny', 'prompt'].map((d) => html`<option value="${d}"${filter.decision === d || (!filter.decision && d === '') ? html` selected` : ''}>${d || 'any'}</option>`)}
</select></div>
${field('Path (glob)', 'path', filter.path, '/home/**/.ssh/**')}
<div class="buttons"><button type="submit">Filter</button> <a href="/audit">Clear</a></div>
</form>
${error ? html`<p class="bad" role="alert">${error}</p>` : ''}
${
  view
    ? html`<div class="stats"><p>${view.stats.total} matching record(s): ${
        Object.entries(view.stats.byDecision)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') || 'none'
      }${view.stats.invalid ? `; ${view.stats.invalid} unreadable line(s)` : ''}.</p>
<figure><figcaption>Denials by tool (${view.denials.total})</figcaption>${barChart(view.denials.byTool, 'Denials by tool')}</figure>
<figure><figcaption>Denials by agent</figcaption>${barChart(view.denials.byAgent, 'Denials by agent')}</figure></div>
<table id="records"><caption>Latest ${view.records.length} matching record(s), newest first</caption>
<thead><tr><th scope="col">Time (UTC)</th><th scope="col">Decision</th><th scope="col">Tool</th><th scope="col">Agent</th><th scope="col">Session</th><th scope="col">Path</th><th scope="col">Reason</th><th scope="col">Record</th></tr></thead>
<tbody>${view.records.map(row)}</tbody></table>`
    : ''
}
</section>`;
}

export function recordPage(id: string, record: Record<string, unknown> | undefined): Raw {
  if (!record)
    return html`<h1>Record</h1><p>No record with decision id <code>${id}</code> in the trail.</p><p><a href="/audit">Back to the audit trail</a></p>`;
  const keys = [
    'timestamp',
    'decision',
    'level',
    'severity',
    'toolId',
    'agentId',
    'sessionId',
    'userId',
    'operation',
    'attemptedPath',
    'code',
    'reason',
    'plugin',
    'policyHash',
    'hash',
    'prev',
  ];
  return html`<h1>Record <code>${id}</code></h1>
<dl class="record">${keys.filter((k) => record[k] !== undefined).map((k) => html`<dt>${k}</dt><dd><code>${String(record[k])}</code></dd>`)}</dl>
<h2>Full record</h2><pre id="record-json" tabindex="0" aria-label="The full record as JSON">${JSON.stringify(record, null, 2)}</pre>
<p><a href="/audit">Back to the audit trail</a></p>`;
}
