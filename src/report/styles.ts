/** The report's stylesheet, inlined into the page: system fonts, a restrained palette, print rules. */
export const REPORT_CSS = `
:root {
  --ink: #0f172a; --text: #1e293b; --muted: #64748b; --line: #e2e8f0; --soft: #f1f5f9;
  --page: #f6f7f9; --card: #ffffff; --accent: #1d4ed8;
  --good-bg: #dcfce7; --good-ink: #166534; --good-line: #86efac;
  --warn-bg: #fef3c7; --warn-ink: #92400e; --warn-line: #fcd34d;
  --bad-bg: #fee2e2; --bad-ink: #991b1b; --bad-line: #fca5a5;
  --neutral-bg: #f1f5f9; --neutral-ink: #475569; --neutral-line: #cbd5e1;
  --info-bg: #dbeafe; --info-ink: #1e40af; --info-line: #93c5fd;
  --mono: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--page); color: var(--text); font: 14px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
code { font-family: var(--mono); font-size: 0.92em; }
h1, h2, h3, h4, h5 { color: var(--ink); line-height: 1.25; }
h2 { font-size: 20px; margin: 44px 0 16px; padding-bottom: 8px; border-bottom: 2px solid var(--line); }
h3 { font-size: 17px; margin: 0; }
h4 { font-size: 15.5px; margin: 6px 0 4px; }
h5 { font-size: 12px; margin: 14px 0 6px; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); }
p { margin: 6px 0; }
ul, ol { margin: 6px 0; padding-left: 22px; }
.wrap { max-width: 1180px; margin: 0 auto; padding: 0 32px; }
.muted { color: var(--muted); }
.small { font-size: 12.5px; }
.page-head { background: var(--card); border-bottom: 1px solid var(--line); padding: 22px 0 0; }
.brand { font-size: 12px; font-weight: 600; letter-spacing: 0.08em; text-transform: uppercase; color: var(--muted); }
.page-head h1 { font-size: 26px; margin: 4px 0 2px; }
.page-nav { display: flex; flex-wrap: wrap; gap: 4px 18px; margin-top: 14px; }
.page-nav a { display: inline-block; padding: 8px 0 10px; border-bottom: 2px solid transparent; color: var(--text); font-weight: 500; }
.page-nav a:hover { border-bottom-color: var(--accent); text-decoration: none; }
main { padding-bottom: 48px; }
section#summary { margin-top: 24px; }
.tiles { display: grid; grid-template-columns: repeat(auto-fill, minmax(230px, 1fr)); gap: 12px; margin: 16px 0; }
.tile { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 12px 16px; }
.tile-label { font-size: 11.5px; text-transform: uppercase; letter-spacing: 0.05em; color: var(--muted); font-weight: 600; }
.tile-value { font-size: 22px; font-weight: 650; color: var(--ink); margin-top: 4px; font-variant-numeric: tabular-nums; }
.tile-detail { font-size: 12px; color: var(--muted); margin-top: 2px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 16px 20px; margin: 14px 0; box-shadow: 0 1px 2px rgba(15, 23, 42, 0.04); }
.card > h4:first-child { margin-top: 0; }
.two-columns { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; align-items: start; }
.two-columns > .card { margin: 0; }
.summary-columns, .two-columns.spaced { margin: 16px 0; }
.badge { display: inline-block; padding: 2px 9px; border-radius: 999px; font-size: 11.5px; font-weight: 600; line-height: 1.6; border: 1px solid transparent; white-space: nowrap; vertical-align: middle; }
.badge-large { font-size: 14px; padding: 3px 12px; }
.tone-good { background: var(--good-bg); color: var(--good-ink); border-color: var(--good-line); }
.tone-warn { background: var(--warn-bg); color: var(--warn-ink); border-color: var(--warn-line); }
.tone-bad { background: var(--bad-bg); color: var(--bad-ink); border-color: var(--bad-line); }
.tone-neutral { background: var(--neutral-bg); color: var(--neutral-ink); border-color: var(--neutral-line); }
.tone-info { background: var(--info-bg); color: var(--info-ink); border-color: var(--info-line); }
.tone-text-good { color: var(--good-ink); }
.tone-text-warn { color: var(--warn-ink); }
.tone-text-bad { color: var(--bad-ink); }
.tone-text-neutral, .tone-text-info { color: var(--neutral-ink); }
.severity { text-transform: uppercase; letter-spacing: 0.04em; }
.severity-critical { background: #7f1d1d; color: #fff; }
.severity-high { background: #dc2626; color: #fff; }
.severity-medium { background: #fde68a; color: #78350f; }
.severity-low { background: #e2e8f0; color: #334155; }
.priority { background: var(--ink); color: #fff; }
.priority-1 { background: #1d4ed8; }
.verification { display: inline-flex; align-items: stretch; border-radius: 6px; border: 1px solid; font-size: 12px; overflow: hidden; vertical-align: middle; }
.verification-label { padding: 2px 8px; font-weight: 650; }
.verification-detail { padding: 2px 8px; background: var(--card); color: var(--text); font-variant-numeric: tabular-nums; }
.card-badges { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.facts { color: var(--muted); font-size: 12.5px; margin: 0 0 8px; }
.insight { border-left: 4px solid var(--neutral-line); }
.insight:has(.severity-critical) { border-left-color: #7f1d1d; }
.insight:has(.severity-high) { border-left-color: #dc2626; }
.insight:has(.severity-medium) { border-left-color: #f59e0b; }
.insight:has(.verification.tone-bad) { background: #fffafa; }
.verification-reason { font-size: 13px; padding: 6px 10px; border-radius: 6px; background: var(--soft); }
.indicators { font-size: 13px; }
.metrics { display: flex; flex-wrap: wrap; gap: 6px 18px; margin: 8px 0; font-size: 12.5px; }
.metrics div { display: flex; gap: 6px; }
.metrics dt { color: var(--muted); }
.metrics dd { margin: 0; font-weight: 600; font-variant-numeric: tabular-nums; }
.links { margin-top: 8px; }
.area { margin: 28px 0 36px; }
.area-head { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 12px; padding: 10px 0 6px; border-bottom: 1px solid var(--line); margin-bottom: 8px; }
.chart-card { margin: 10px 0; max-width: 600px; background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px 8px; display: flex; flex-direction: column; }
.chart-card svg.chart { margin: auto 0; }
.chart-card figcaption { display: flex; flex-direction: column; gap: 2px; margin-bottom: 6px; }
.chart-title { font-weight: 600; color: var(--ink); }
svg.chart { display: block; width: 100%; height: auto; }
.no-chart { color: var(--muted); font-style: italic; margin: 10px 0; }
.banner { border-radius: 8px; padding: 10px 16px; margin: 12px 0; border: 1px solid; }
.banner ul { margin: 4px 0 0; }
.banner-error { background: #fef2f2; color: var(--bad-ink); border-color: var(--bad-line); border-left: 5px solid #dc2626; }
.banner-warn { background: #fffbeb; color: var(--warn-ink); border-color: var(--warn-line); border-left: 5px solid #f59e0b; }
.banner-note { background: #f8fafc; color: inherit; border-color: #e2e8f0; border-left: 5px solid #94a3b8; }
.error-text { color: var(--bad-ink); }
pre.sql { font-family: var(--mono); font-size: 12px; line-height: 1.45; background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; margin: 6px 0; white-space: pre-wrap; overflow-wrap: anywhere; color: var(--ink); }
pre.sql-original { background: #fff7ed; border-color: #fed7aa; }
.table-scroll { overflow-x: auto; margin: 8px 0; }
table.data { border-collapse: collapse; width: 100%; font-size: 13px; background: var(--card); }
table.data caption { text-align: left; font-size: 12px; font-weight: 600; color: var(--muted); padding: 4px 0; text-transform: uppercase; letter-spacing: 0.04em; }
table.data th, table.data td { padding: 5px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
table.data thead th { background: var(--soft); font-weight: 600; color: var(--ink); font-size: 12px; }
table.data tfoot th, table.data tfoot td { font-weight: 700; border-top: 2px solid var(--line); border-bottom: none; }
table.data .num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.data td.null { color: var(--muted); font-style: italic; }
table.compact { font-size: 12px; width: auto; min-width: 50%; }
table.compact th, table.compact td { padding: 3px 8px; }
table.kv th { font-weight: 500; color: var(--muted); width: 45%; background: none; }
details > summary { cursor: pointer; font-weight: 600; color: var(--accent); }
details.evidence { margin-top: 10px; border-top: 1px dashed var(--line); padding-top: 8px; }
details.evidence > summary { font-size: 13px; }
.evidence-step { margin: 10px 0 14px; padding-left: 12px; border-left: 3px solid var(--line); }
.evidence-step h5 { text-transform: none; letter-spacing: 0; font-size: 13px; color: var(--ink); margin: 4px 0; }
.rec-grid { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 0 28px; }
.linked-insights { list-style: none; padding-left: 0; }
.linked-insights li { margin: 3px 0; }
.meter { height: 10px; background: var(--soft); border-radius: 999px; overflow: hidden; margin: 8px 0 10px; border: 1px solid var(--line); }
.meter span { display: block; height: 100%; background: #2563eb; }
details.log { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 12px 18px; }
.log-step { padding: 10px 0; border-bottom: 1px solid var(--line); }
.log-step:last-child { border-bottom: none; }
.log-head { display: flex; flex-wrap: wrap; gap: 6px 10px; align-items: center; }
.step-number { font-weight: 700; color: var(--ink); font-variant-numeric: tabular-nums; min-width: 2.2em; }
.log-purpose { font-weight: 500; color: var(--ink); }
.page-foot { padding: 18px 32px 36px; border-top: 1px solid var(--line); }
@media (max-width: 900px) {
  .two-columns, .rec-grid { grid-template-columns: minmax(0, 1fr); }
}
@media print {
  @page { margin: 14mm 12mm; }
  body { background: #fff; font-size: 11px; }
  .wrap { max-width: none; padding: 0; }
  .page-nav, details > summary::marker { display: none; }
  .page-head { border: none; padding-top: 0; }
  .card, .tile, .chart-card, details.log { box-shadow: none; break-inside: avoid; }
  .area-head, h2, h3, h4 { break-after: avoid; }
  a { color: inherit; }
  pre.sql { break-inside: avoid; }
  .tone-good, .tone-warn, .tone-bad, .tone-neutral, .tone-info, .severity, .priority, .banner, .meter span { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
`;
