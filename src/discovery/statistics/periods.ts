/**
 * Periods of a time axis: where a period sits on the axis (for fitting), how a claim names its start
 * (`2023-07-01`), and where it ends. Periods are UTC calendar periods, as `date_trunc` cuts them.
 */
import type { ClaimGrain } from '../../domain/index.js';

export type PeriodGrain = Extract<ClaimGrain, 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year'>;

const DAY_MS = 86_400_000;

export function isPeriodGrain(grain: ClaimGrain | undefined): grain is PeriodGrain {
  return grain === 'hour' || grain === 'day' || grain === 'week' || grain === 'month' || grain === 'quarter' || grain === 'year';
}

/** Milliseconds since the epoch of an ISO date or timestamp (a naive one read as UTC); NaN if unreadable. */
export function isoMillis(text: string): number {
  const trimmed = text.trim();
  const withTime = /^\d{4}-\d{2}-\d{2}$/.test(trimmed) ? `${trimmed}T00:00:00Z` : trimmed.replace(' ', 'T');
  const zoned = /([zZ]|[+-]\d{2}(:?\d{2})?)$/.test(withTime) ? withTime : `${withTime}Z`;
  return Date.parse(zoned);
}

/** The period's position on its axis: consecutive periods are one apart. */
export function periodPosition(startIso: string, grain: PeriodGrain): number {
  const millis = isoMillis(startIso);
  const date = new Date(millis);
  switch (grain) {
    case 'hour':
      return Math.round(millis / 3_600_000);
    case 'day':
      return Math.round(millis / DAY_MS);
    case 'week':
      return Math.round(millis / (7 * DAY_MS));
    case 'month':
      return date.getUTCFullYear() * 12 + date.getUTCMonth();
    case 'quarter':
      return date.getUTCFullYear() * 4 + Math.floor(date.getUTCMonth() / 3);
    case 'year':
      return date.getUTCFullYear();
  }
}

/** The period start as a claim writes it: `2023-07-01`, or `2023-07-01 13:00:00` for hours. */
export function periodStart(startIso: string, grain: PeriodGrain): string {
  const iso = new Date(isoMillis(startIso)).toISOString();
  return grain === 'hour' ? `${iso.slice(0, 10)} ${iso.slice(11, 19)}` : iso.slice(0, 10);
}

/** The start of the period after the one starting at `startIso`. */
export function nextPeriodStart(startIso: string, grain: PeriodGrain): string {
  const date = new Date(isoMillis(startIso));
  switch (grain) {
    case 'hour':
      date.setUTCHours(date.getUTCHours() + 1);
      break;
    case 'day':
      date.setUTCDate(date.getUTCDate() + 1);
      break;
    case 'week':
      date.setUTCDate(date.getUTCDate() + 7);
      break;
    case 'month':
      date.setUTCMonth(date.getUTCMonth() + 1);
      break;
    case 'quarter':
      date.setUTCMonth(date.getUTCMonth() + 3);
      break;
    case 'year':
      date.setUTCFullYear(date.getUTCFullYear() + 1);
      break;
  }
  return periodStart(date.toISOString(), grain);
}

/** The start of the period before the one starting at `startIso`. */
export function previousPeriodStart(startIso: string, grain: PeriodGrain): string {
  const date = new Date(isoMillis(startIso));
  switch (grain) {
    case 'hour':
      date.setUTCHours(date.getUTCHours() - 1);
      break;
    case 'day':
      date.setUTCDate(date.getUTCDate() - 1);
      break;
    case 'week':
      date.setUTCDate(date.getUTCDate() - 7);
      break;
    case 'month':
      date.setUTCMonth(date.getUTCMonth() - 1);
      break;
    case 'quarter':
      date.setUTCMonth(date.getUTCMonth() - 3);
      break;
    case 'year':
      date.setUTCFullYear(date.getUTCFullYear() - 1);
      break;
  }
  return periodStart(date.toISOString(), grain);
}

/** How a person names the period: `2023`, `2023-Q3`, `July 2023`, `2023-07-03`. */
export function periodName(startIso: string, grain: PeriodGrain): string {
  const date = new Date(isoMillis(startIso));
  const year = date.getUTCFullYear();
  switch (grain) {
    case 'year':
      return String(year);
    case 'quarter':
      return `${year}-Q${Math.floor(date.getUTCMonth() / 3) + 1}`;
    case 'month':
      return `${MONTH_NAMES[date.getUTCMonth()]} ${year}`;
    case 'week':
      return `the week of ${periodStart(startIso, 'day')}`;
    case 'day':
      return periodStart(startIso, 'day');
    case 'hour':
      return periodStart(startIso, 'hour').slice(0, 16);
  }
}

export const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

export const WEEKDAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;

/** The starts of the periods from `from` (inclusive) to `to` (exclusive); undefined past `limit` periods. */
export function periodStartsBetween(from: string, to: string, grain: PeriodGrain, limit = 10_000): string[] | undefined {
  const end = periodStart(to, grain);
  const starts: string[] = [];
  for (let start = periodStart(from, grain); start < end; start = nextPeriodStart(start, grain)) {
    if (starts.length >= limit) return undefined;
    starts.push(start);
  }
  return starts;
}
