/** Recognising ISO-8601 dates and timestamps in result cells, without the machine's time zone leaking in. */

const ISO_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s?(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/;

const CHAR_DASH = 45;

/**
 * Milliseconds since the epoch for an ISO-8601 date (`2024-03-01`) or timestamp
 * (`2024-03-01T10:00:00.123Z`, `2024-03-01 10:00:00+01`), or `undefined` when `text` is not one.
 * A timestamp without an offset is read as UTC — `Date.parse` would read it in the local zone, so the
 * same result would order differently on two machines.
 */
export function parseIsoTimestamp(text: string): number | undefined {
  // Cheap shape check first: most strings in a result are not dates and should not pay for the regex.
  if (text.length < 10 || text.length > 40 || text.charCodeAt(4) !== CHAR_DASH || text.charCodeAt(7) !== CHAR_DASH) return undefined;
  const match = ISO_TIMESTAMP.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', offset] = match;
  const monthNumber = Number(month);
  const dayNumber = Number(day);
  const hourNumber = Number(hour);
  const minuteNumber = Number(minute);
  const secondNumber = Number(second);
  if (monthNumber < 1 || monthNumber > 12 || dayNumber < 1 || dayNumber > 31) return undefined;
  if (hourNumber > 24 || minuteNumber > 59 || secondNumber > 60) return undefined;
  const fractionMs = fraction === '' ? 0 : Number(`0.${fraction}`) * 1000;
  const utcMs = Date.UTC(Number(year), monthNumber - 1, dayNumber, hourNumber, minuteNumber, secondNumber) + fractionMs;
  return utcMs - offsetMinutes(offset) * 60_000;
}

function offsetMinutes(offset: string | undefined): number {
  if (offset === undefined || offset === 'Z' || offset === 'z') return 0;
  const sign = offset.startsWith('-') ? -1 : 1;
  const digits = offset.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
  return sign * (hours * 60 + minutes);
}
