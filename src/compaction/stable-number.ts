/** Number formatting that is identical on every machine and every run (no locale, no float noise). */

/** Significant digits kept for statistics: enough to read a trend, few enough to hide interpolation noise. */
export const STAT_SIGNIFICANT_DIGITS = 6;

/**
 * Round to 6 significant digits with `toPrecision`, which is locale-free and specified by ECMAScript,
 * and monotone (a ≤ b ⇒ round(a) ≤ round(b)), so ordered statistics stay ordered after rounding.
 * `-0` becomes `0` so it serialises the same way as `0`.
 */
export function stableNumber(value: number): number {
  const rounded = Number(value.toPrecision(STAT_SIGNIFICANT_DIGITS));
  return Object.is(rounded, -0) ? 0 : rounded;
}

/**
 * Round a set of ordered statistics together: all exact when every one is a safe integer (counts and
 * ids read better unrounded), otherwise all rounded. Rounding only some of them could reorder them
 * (an exact max of 1234568 under a p75 of 1234567.6 rounded up to 1234570).
 */
export function stableNumbers(values: readonly number[]): number[] {
  if (values.every((value) => Number.isSafeInteger(value))) return values.map((value) => (Object.is(value, -0) ? 0 : value));
  return values.map(stableNumber);
}

/** `1234567` → `1,234,567` without `toLocaleString`, whose output depends on the machine's locale. */
export function groupThousands(value: number): string {
  const [integerPart = '', fraction] = String(value).split('.');
  const sign = integerPart.startsWith('-') ? '-' : '';
  const digits = sign ? integerPart.slice(1) : integerPart;
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? `${sign}${grouped}` : `${sign}${grouped}.${fraction}`;
}
