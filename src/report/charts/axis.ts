/** Scales and "nice" tick values for the report's SVG charts. */

/** A span this small relative to the values is rounding noise: the series is flat. */
const FLAT_SPAN_RATIO = 1e-9;
/** Smallest half-height of the axis around a flat, non-zero series, so the tick step never underflows. */
const MIN_FLAT_SPREAD = 1e-9;

/** Tick step of 1, 2 or 5 × 10^n closest above the raw step, so ticks read as round numbers. */
function niceStep(rawStep: number): number {
  const exponent = Math.floor(Math.log10(rawStep));
  const magnitude = 10 ** exponent;
  const fraction = rawStep / magnitude;
  const nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
  return nice * magnitude;
}

/** Round tick values covering [min, max] (inclusive), about `targetCount` intervals. */
export function niceTicks(min: number, max: number, targetCount = 5): number[] {
  let low = min;
  let high = max;
  if (high - low <= Math.max(Math.abs(low), Math.abs(high), 1) * FLAT_SPAN_RATIO) {
    // A flat series still needs an axis: widen around the value (0..1 for all zeros).
    const centre = (low + high) / 2;
    const spread = centre === 0 ? 1 : Math.max(Math.abs(centre) * 0.5, MIN_FLAT_SPREAD);
    low = Math.min(min, centre === 0 ? 0 : centre - spread);
    high = Math.max(max, centre + spread);
  }
  const step = niceStep((high - low) / targetCount);
  // Division can underflow for values near zero; step once more so the ticks always cover the data.
  const roughStart = Math.floor(low / step) * step;
  const roughEnd = Math.ceil(high / step) * step;
  const start = roughStart > low ? roughStart - step : roughStart;
  const end = roughEnd < high ? roughEnd + step : roughEnd;
  const ticks: number[] = [];
  for (let index = 0; start + index * step <= end + step / 2; index += 1) {
    // toPrecision strips binary noise such as 0.30000000000000004.
    ticks.push(Number((start + index * step).toPrecision(12)));
  }
  return ticks;
}

/** Linear map from a domain onto a pixel range. */
export function linearScale(domainMin: number, domainMax: number, rangeMin: number, rangeMax: number): (value: number) => number {
  const span = domainMax - domainMin || 1;
  return (value) => rangeMin + ((value - domainMin) / span) * (rangeMax - rangeMin);
}

/** SVG coordinates with one decimal: smaller markup and byte-identical output across runs. */
export function svgNumber(value: number): string {
  return String(Number(value.toFixed(1)));
}
