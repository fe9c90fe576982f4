/** The outer <svg> element shared by every chart: fixed viewBox, scalable width, accessible title. Inline in HTML, so no xmlns. */
import { html, type SafeHtml } from '../escape.js';
import { chartTheme } from './chart-theme.js';

export function svgFrame(options: { width: number; height: number; title: string; body: SafeHtml }): SafeHtml {
  const { width, height, title, body } = options;
  return html`<svg class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${title}" font-family="${chartTheme.font}" font-size="${chartTheme.fontSize}" fill="${chartTheme.text}"><title>${title}</title>${body}</svg>`;
}
