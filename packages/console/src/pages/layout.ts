import { html, type Raw } from './html.js';

export type PageName = 'approvals' | 'audit' | 'explain';

const NAV: ReadonlyArray<[PageName, string, string]> = [
  ['approvals', '/', 'Approvals'],
  ['audit', '/audit', 'Decisions & audit'],
  ['explain', '/explain', 'Explain'],
];

/**
 * Every page: no inline script or style (the CSP forbids both), the CSRF token in a meta tag for the one
 * script, a skip link and one `main` landmark.
 */
export function layout(page: PageName, title: string, csrf: string, body: Raw): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${csrf}">
<title>${title} · toolgate console</title>
<link rel="stylesheet" href="/assets/console.css">
<script src="/assets/console.js" defer></script>
</head>
<body data-page="${page}">
<a class="skip" href="#main">Skip to content</a>
<header>
<span class="brand">toolgate console</span>
<nav aria-label="Pages"><ul>${NAV.map(
    ([name, href, label]) =>
      html`<li><a href="${href}"${name === page ? html` aria-current="page"` : ''}>${label}</a></li>`,
  )}</ul></nav>
<form method="post" action="/logout" class="logout"><input type="hidden" name="_csrf" value="${csrf}"><button type="submit">Log out</button></form>
</header>
<main id="main" tabindex="-1">
${body}
</main>
</body>
</html>
`.html;
}

/** A page for someone without a session: how to get in, nothing else. */
export function loginNeeded(message: string): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Log in · toolgate console</title>
<link rel="stylesheet" href="/assets/console.css"></head>
<body><main id="main"><h1>Log in</h1><p>${message}</p>
<p>Open the login link the console printed when it started (it works once, for a few minutes). For a new
link: <code>curl -X POST -H "Authorization: Bearer $TOOLGATE_CONSOLE_TOKEN" http://HOST:PORT/api/login-codes</code>.</p>
</main></body></html>
`.html;
}
