import type { ExplainView } from '../options.js';
import { html, type Raw } from './html.js';

export interface ExplainForm {
  path: string;
  op: 'read' | 'write';
  call: string;
}

export function explainPage(
  available: boolean,
  form: ExplainForm,
  result?: ExplainView,
  error?: string,
): Raw {
  if (!available)
    return html`<h1>Explain</h1><p>Explain needs a policy: start the console with <code>--policy</code> (or from <code>toolgate mcp --console</code>).</p>`;
  return html`<h1>Explain</h1>
<p>Why would a call get its decision? Every access, how it resolved, every rule considered — <code>toolgate explain</code> in the browser.</p>
<form method="get" action="/explain" class="explain" aria-label="Explain a path">
<fieldset><legend>A path</legend>
<div class="field"><label for="x-path">Path</label><input id="x-path" name="path" type="text" value="${form.path}" placeholder="~/.ssh/id_rsa"></div>
<div class="field"><label for="x-op">Operation</label><select id="x-op" name="op">${(['read', 'write'] as const).map((o) => html`<option value="${o}"${form.op === o ? html` selected` : ''}>${o}</option>`)}</select></div>
<div class="buttons"><button type="submit">Explain the path</button></div></fieldset>
</form>
<form method="get" action="/explain" class="explain" aria-label="Explain a call">
<fieldset><legend>A call</legend>
<div class="field"><label for="x-call">Call as JSON</label><textarea id="x-call" name="call" rows="3" cols="80" placeholder='{"tool": "bash", "args": {"command": "cat ~/.aws/credentials"}}'>${form.call}</textarea></div>
<div class="buttons"><button type="submit">Explain the call</button></div></fieldset>
</form>
${error ? html`<p class="bad" role="alert">${error}</p>` : ''}
${result ? html`<section aria-labelledby="x-h"><h2 id="x-h">Decision: <span class="d-${result.decision}">${result.decision.toUpperCase()}</span></h2><pre id="explain-output" tabindex="0" aria-label="Explain output">${result.text}</pre></section>` : ''}`;
}
