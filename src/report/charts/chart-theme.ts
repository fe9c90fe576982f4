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
  /** The contribution's segment line. */
  segmentSeries: '#ea580c',
  /** Bars by their role in the claim. */
  bar: { segment: '#1d4ed8', comparison: '#ea580c', other: '#93c5fd', others: '#cbd5e1', missing: '#94a3b8' },
  reference: '#475569',
  windowFill: '#fde68a',
  baselineFill: '#e2e8f0',
} as const;

/** Characters a label may use before it is shortened with an ellipsis (full text stays in a <title>). */
export const BAR_LABEL_MAX_CHARS = 24;
