/**
 * Engine values → JSON-safe `Cell`s, the same way for every adapter: integers as numbers when
 * exact (else decimal strings), decimals as numbers, dates `YYYY-MM-DD`, timestamps ISO-8601 in
 * UTC (a naive timestamp is read as UTC), blobs as a short placeholder, nested values as JSON text.
 */
import type { Cell } from '../domain/index.js';

const MILLIS_PER_DAY = 86_400_000;
/** JavaScript dates cover ±8.64e15 ms; beyond that an engine's text form is kept. */
const MAX_DATE_MILLIS = 8.64e15;

export function integerCell(value: bigint | number | string): Cell {
  const big = typeof value === 'bigint' ? value : BigInt(value);
  return big <= BigInt(Number.MAX_SAFE_INTEGER) && big >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(big) : big.toString();
}

/** DECIMAL/NUMERIC → number (analysis wants arithmetic; the last digits of a 38-digit decimal matter less than its type). */
export function decimalCell(text: string): Cell {
  const parsed = Number(text);
  return Number.isFinite(parsed) ? parsed : text;
}

/** A float that JSON can carry: NaN and ±Infinity become their names. */
export function floatCell(value: number): Cell {
  return Number.isFinite(value) ? value : String(value);
}

export function isoDateFromEpochDays(days: number, fallback: string): Cell {
  const millis = days * MILLIS_PER_DAY;
  return Math.abs(millis) <= MAX_DATE_MILLIS ? new Date(millis).toISOString().slice(0, 10) : fallback;
}

export function isoTimestampFromEpochMillis(millis: number, fallback: string): Cell {
  return Number.isFinite(millis) && Math.abs(millis) <= MAX_DATE_MILLIS ? new Date(millis).toISOString() : fallback;
}

/** `2024-03-01 10:00:00.123456[+02[:00]]` (engine text) → ISO-8601 UTC; naive values are read as UTC. */
export function isoTimestampFromText(text: string): Cell {
  const match = /^(\d{4,})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([+-])(\d{2})(?::?(\d{2}))?(?::(\d{2}))?)?$/.exec(
    text.trim(),
  );
  if (match === null) return text;
  const [, year, month, day, hour, minute, second, fraction, sign, offsetHours, offsetMinutes] = match;
  const millis =
    Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second)) +
    Math.floor(Number(fraction ?? '0') * 1000);
  const offset = sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes ?? '0')) * 60_000;
  return isoTimestampFromEpochMillis(millis - offset, text);
}

export function blobPlaceholder(byteLength: number): Cell {
  return `<blob ${byteLength} bytes>`;
}

/** LIST / STRUCT / MAP / JSON values travel as compact JSON text (Cells are scalars). */
export function jsonTextCell(value: unknown): Cell {
  return JSON.stringify(value, (_key, entry: unknown) => (typeof entry === 'bigint' ? integerCell(entry) : entry)) ?? null;
}

/** Result rows are objects keyed by column name: repeated names get `_2`, `_3` … so no value is lost. */
export function deduplicateColumnNames(names: readonly string[]): string[] {
  const seen = new Set<string>();
  return names.map((name) => {
    let candidate = name;
    for (let suffix = 2; seen.has(candidate); suffix += 1) candidate = `${name}_${suffix}`;
    seen.add(candidate);
    return candidate;
  });
}
