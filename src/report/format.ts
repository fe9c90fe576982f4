/**
 * Number, money, time and cell formatting for the report. Locale-independent on purpose: the same
 * input must render the same bytes on every machine (no `toLocaleString`, no current time).
 */
import type { Cell } from '../domain/index.js';

function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** 1234567.891 → "1,234,567.89"; integers keep no decimals. */
export function formatNumber(value: number, maxDecimals = 2): string {
  if (!Number.isFinite(value)) return String(value);
  const fixed = Math.abs(value).toFixed(Number.isInteger(value) ? 0 : maxDecimals);
  const [whole = '0', fraction] = fixed.split('.');
  const trimmedFraction = fraction?.replace(/0+$/, '') ?? '';
  const sign = value < 0 && Number(fixed) !== 0 ? '-' : '';
  return `${sign}${groupThousands(whole)}${trimmedFraction ? `.${trimmedFraction}` : ''}`;
}

const COMPACT_UNITS: ReadonlyArray<[number, string]> = [
  [1e12, 'T'],
  [1e9, 'B'],
  [1e6, 'M'],
  [1e3, 'k'],
];

/** Short form for axis ticks and chart labels: 12500 → "12.5k". */
export function formatCompact(value: number): string {
  const magnitude = Math.abs(value);
  for (const [unit, suffix] of COMPACT_UNITS) {
    if (magnitude >= unit) return `${formatNumber(value / unit, magnitude / unit >= 100 ? 0 : 1)}${suffix}`;
  }
  return formatNumber(value, magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3);
}

/** Dollars: four decimals below $1 so cheap calls stay comparable in one column, cents above. */
export function formatCost(usd: number): string {
  if (Math.abs(usd) < 1) return `$${usd.toFixed(4)}`;
  const [whole = '0', cents = '00'] = usd.toFixed(2).split('.');
  return `$${groupThousands(whole)}.${cents}`;
}

/** Cost of a run's model calls; an offline model costs nothing, which "$0.0000" would not say. */
export function describeRunCost(usd: number, llm: string): string {
  if (usd === 0 && llm.startsWith('offline:')) return 'none (offline model)';
  return formatCost(usd);
}

export function formatPercent(ratio: number): string {
  return `${formatNumber(ratio * 100, 1)}%`;
}

/** 3723000 ms → "1 h 2 min 3 s". */
export function formatDuration(milliseconds: number): string {
  if (milliseconds < 1000) return `${Math.round(milliseconds)} ms`;
  const totalSeconds = Math.round(milliseconds / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  const parts: string[] = [];
  if (hours > 0) parts.push(`${hours} h`);
  if (minutes > 0) parts.push(`${minutes} min`);
  if (seconds > 0 || parts.length === 0) parts.push(`${seconds} s`);
  return parts.join(' ');
}

/** ISO timestamp → "2025-03-14 09:26 UTC"; anything unparseable is shown as given. */
export function formatTimestamp(iso: string | undefined): string {
  if (!iso) return '—';
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return iso;
  const stamp = new Date(time).toISOString();
  return `${stamp.slice(0, 10)} ${stamp.slice(11, 16)} UTC`;
}

/** One result cell as text for a table. */
export function formatCell(cell: Cell | undefined): string {
  if (cell === null || cell === undefined) return 'null';
  if (typeof cell === 'number') return formatNumber(cell, 4);
  return String(cell);
}

/** "1 step" / "3 steps". */
export function pluralize(count: number, singular: string, plural = `${singular}s`): string {
  return `${formatNumber(count)} ${count === 1 ? singular : plural}`;
}

/** Cuts text to `maxChars`, ending with an ellipsis when anything was cut. */
export function truncate(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 1)}…`;
}
