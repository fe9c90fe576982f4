/** The HTML run report: one self-contained page per run, with evidence, verification and charts. */
export { renderRunReport } from './html.js';
export type { ReportArea, RunReportInput } from './report-context.js';
export { escapeHtml } from './escape.js';
