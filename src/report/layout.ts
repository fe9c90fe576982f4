/** The page shell: head with inline CSS and a strict Content-Security-Policy, header and navigation, footer. */
import { createHash } from 'node:crypto';
import { html, rawHtml, type SafeHtml } from './escape.js';
import { REPORT_CSS } from './styles.js';

/** Opens every collapsed block before printing so a printed report shows all evidence; the page reads the same without it. */
const PRINT_EXPAND_SCRIPT =
  "window.addEventListener('beforeprint',function(){document.querySelectorAll('details').forEach(function(d){d.open=true;});});";

const PRINT_EXPAND_SCRIPT_HASH = createHash('sha256').update(PRINT_EXPAND_SCRIPT).digest('base64');

/**
 * Nothing may load from anywhere: the file must open offline, and if escaping ever failed an
 * injected <script> or remote resource would still be blocked. Only our own script hash runs.
 */
const CONTENT_SECURITY_POLICY = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-${PRINT_EXPAND_SCRIPT_HASH}'`;

export interface PageOptions {
  title: string;
  heading: string;
  subheading: string;
  navigation: ReadonlyArray<{ href: string; label: string }>;
  body: SafeHtml;
  footer: string;
}

export function renderPage(options: PageOptions): string {
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">
<title>${options.title}</title>
<style>${rawHtml(REPORT_CSS)}</style>
</head>
<body>
<header class="page-head"><div class="wrap">
<div class="brand">Assay · discovery run report</div>
<h1>${options.heading}</h1>
<p class="muted">${options.subheading}</p>
<nav class="page-nav">${options.navigation.map((link) => html`<a href="${link.href}">${link.label}</a>`)}</nav>
</div></header>
<main class="wrap">
${options.body}
</main>
<footer class="page-foot wrap muted small">${options.footer}</footer>
<script>${rawHtml(PRINT_EXPAND_SCRIPT)}</script>
</body>
</html>
`.markup;
}
