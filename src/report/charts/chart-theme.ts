/** Chart geometry and colours, written as SVG attributes so a chart stays correct when copied out of the page. */
export const chartTheme = {
  font: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  fontSize: 11,
  text: '#334155',
  mutedText: '#64748b',
  grid: '#e2e8f0',
  axis: '#94a3b8',
  series: '#2563eb',
  seriesFill: '#dbeafe',
  bar: '#3b82f6',
  negativeBar: '#f97316',
} as const;

/** Characters a label may use before it is shortened with an ellipsis (full text stays in a <title>). */
export const BAR_LABEL_MAX_CHARS = 24;
