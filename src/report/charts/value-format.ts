/**
 * How a claim's values read on a chart: rates and shares in %, money with its symbol, durations and
 * labelled units after the number — the units `formatMetricValue` writes the insight's text in, so a
 * chart and its insight never disagree on a unit.
 */
import { formatMetricValue, metricUnit } from '../../discovery/claims/claim-text.js';
import type { Claim } from '../../domain/index.js';
import { formatCompact } from '../format.js';

export interface ValueFormat {
  /** A value at a bar's end or in a tooltip: "22.8%", "$837", "7.44 days". */
  label(value: number): string;
  /** A tick of the value axis, short: "25%", "$1.2k", "4". */
  tick(value: number): string;
  /** The unit for the axis title ("%", "$", "days"), empty when the values have none. */
  unit: string;
}

/** Percent ticks with no more decimals than the step between them needs. */
function percentTick(value: number): string {
  const percent = value * 100;
  const rounded = Number(percent.toPrecision(12));
  const decimals = Number.isInteger(rounded) ? 0 : Math.min(2, (String(rounded).split('.')[1] ?? '').length);
  return `${rounded.toFixed(decimals)}%`;
}

export function valueFormatFor(claim: Claim): ValueFormat {
  const unit = metricUnit(claim);
  const label = (value: number) => formatMetricValue(claim, value);
  switch (unit.kind) {
    case 'percent':
      return { label, tick: percentTick, unit: '%' };
    case 'money':
      return { label, tick: (value) => `${value < 0 ? '−' : ''}${unit.symbol}${formatCompact(Math.abs(value))}`, unit: unit.symbol };
    case 'unit':
      return { label, tick: formatCompact, unit: unit.text };
    case 'none':
      return { label, tick: formatCompact, unit: '' };
  }
}
