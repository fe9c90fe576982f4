/** Small text formats shared by the catalog, lookups, searches and blurbs. */
import type { Cell } from '../warehouse/port.js';

const ROW_COUNT_UNITS: Array<[number, string]> = [
  [1e9, 'B'],
  [1e6, 'M'],
  [1e3, 'K'],
];

/** `950`, `1.2K`, `3M`, `4.5B`; a negative count (unknown) is `unknown`. */
export function formatRowCount(rowCount: number): string {
  if (rowCount < 0) return 'unknown';
  if (rowCount < 1000) return String(Math.round(rowCount));
  for (let index = 0; index < ROW_COUNT_UNITS.length; index++) {
    const [unit, suffix] = ROW_COUNT_UNITS[index] as [number, string];
    if (rowCount < unit) continue;
    const rounded = Math.round((rowCount / unit) * 10) / 10;
    // 999,960 rounds to 1000.0K: say 1M instead.
    const larger = ROW_COUNT_UNITS[index - 1];
    if (rounded >= 1000 && larger) return `${formatUnit(rowCount / larger[0])}${larger[1]}`;
    return `${formatUnit(rowCount / unit)}${suffix}`;
  }
  return String(rowCount);
}

function formatUnit(value: number): string {
  return (Math.round(value * 10) / 10).toFixed(1).replace(/\.0$/, '');
}

/** Cuts a text at `maxChars` characters, marking the cut. */
export function truncateText(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}…`;
}

/** A sample value for a prompt: NULL for null, strings quoted after cutting, others as written. */
export function formatSampleValue(value: Cell | undefined, maxChars: number): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return JSON.stringify(truncateText(value, maxChars));
  return String(value);
}
