/** Recognising time-like result cells ("2024-03", "2024-03-01", "2024-03-01 12:00:00") and placing them on a time axis. */
import type { Cell } from '../../domain/index.js';

const TIME_LIKE = /^\d{4}-\d{2}(-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?)?$/;
const HAS_ZONE = /(Z|[+-]\d{2}:?\d{2})$/;

/** Epoch milliseconds (UTC) for a time-like cell, or undefined when the cell is not a date or time. */
export function timeValue(cell: Cell | undefined): number | undefined {
  if (typeof cell !== 'string' || !TIME_LIKE.test(cell)) return undefined;
  let iso: string;
  if (cell.length === 7) iso = `${cell}-01T00:00:00Z`;
  else if (cell.length === 10) iso = `${cell}T00:00:00Z`;
  else {
    const withT = cell.replace(' ', 'T');
    iso = HAS_ZONE.test(withT) ? withT : `${withT}Z`;
  }
  const time = Date.parse(iso);
  return Number.isNaN(time) ? undefined : time;
}

/**
 * Short axis labels for a set of time cells: the date part, or just "YYYY-MM" when every value
 * is the first of a month at midnight (monthly series are usually stored as month starts).
 */
export function timeLabels(cells: readonly string[]): string[] {
  const dateParts = cells.map((cell) => cell.slice(0, 10));
  const monthly = cells.every((cell) => {
    const time = timeValue(cell);
    if (time === undefined) return false;
    const date = new Date(time);
    return date.getUTCDate() === 1 && time % 86_400_000 === 0;
  });
  return monthly ? cells.map((cell) => cell.slice(0, 7)) : dateParts;
}
