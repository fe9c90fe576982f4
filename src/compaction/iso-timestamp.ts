/** Recognising ISO-8601 dates and timestamps in result cells, without the machine's time zone leaking in. */

const ISO_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s?(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * `String.prototype.charCodeAt`, held in a constant and called with `.call`. Once any loaded module
 * defines a `class … extends String` (ioredis does, and the fleet workers load it), V8 stops inlining
 * `text.charCodeAt(i)` and every call costs about four times as much; a call through the constant keeps
 * the inlined builtin either way.
 */
const charCodeAt = String.prototype.charCodeAt;
const CHAR_DASH = 45;
const CHAR_0 = 48;
const CHAR_COLON = 58;
const CHAR_SPACE = 32;
const CHAR_T = 84;
const CHAR_Z = 90;
const CHAR_LOWER_Z = 122;
/** Not a plain timestamp: let the full pattern decide. */
const NOT_PLAIN = -1;

/**
 * Milliseconds since the epoch for an ISO-8601 date (`2024-03-01`) or timestamp
 * (`2024-03-01T10:00:00.123Z`, `2024-03-01 10:00:00+01`), or `undefined` when `text` is not one.
 * A timestamp without an offset is read as UTC — `Date.parse` would read it in the local zone, so the
 * same result would order differently on two machines.
 */
export function parseIsoTimestamp(text: string): number | undefined {
  // Cheap shape check first: most strings in a result are not dates and should not pay for the regex.
  if (text.length < 10 || text.length > 40 || charCodeAt.call(text, 4) !== CHAR_DASH || charCodeAt.call(text, 7) !== CHAR_DASH)
    return undefined;
  const plain = parsePlainTimestamp(text);
  if (plain !== undefined) return Number.isNaN(plain) ? undefined : plain;
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

/** The two-digit number at `index`, or NOT_PLAIN. */
function twoDigits(text: string, index: number): number {
  const tens = charCodeAt.call(text, index) - CHAR_0;
  const units = charCodeAt.call(text, index + 1) - CHAR_0;
  // As unsigned, a code below '0' is huge: one comparison per digit.
  if (tens >>> 0 > 9 || units >>> 0 > 9) return NOT_PLAIN;
  return tens * 10 + units;
}

/** Exact powers of ten for fractions of up to 9 digits. */
const POWERS_OF_TEN = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000];
const CHAR_DOT = 46;
const CHAR_COMMA = 44;

/**
 * The shapes engines print almost always, without the regular expression: `YYYY-MM-DD` and
 * `YYYY-MM-DD[T ]HH:MM:SS`, optionally with a fraction of 1–9 digits and then a `Z`
 * (`2024-03-01T10:00:00.000Z`, what the warehouse adapters emit). The same checks as the full pattern
 * and the same instant as its arithmetic (`Date.UTC(…) + Number('0.' + fraction) * 1000`: an exact
 * integer over an exact power of ten rounds the same as that text), so both paths agree. `undefined`
 * hands anything else (offsets, no seconds, whitespace) to the pattern; NaN means "not a timestamp".
 */
function parsePlainTimestamp(text: string): number | undefined {
  const length = text.length;
  if (length !== 10 && length < 19) return undefined;
  const century = twoDigits(text, 0);
  const yearInCentury = twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  if (century === NOT_PLAIN || yearInCentury === NOT_PLAIN || month === NOT_PLAIN || day === NOT_PLAIN) return undefined;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let fractionMs = 0;
  if (length > 10) {
    const separator = charCodeAt.call(text, 10);
    if (separator !== CHAR_T && separator !== CHAR_SPACE) return undefined;
    if (charCodeAt.call(text, 13) !== CHAR_COLON || charCodeAt.call(text, 16) !== CHAR_COLON) return undefined;
    hour = twoDigits(text, 11);
    minute = twoDigits(text, 14);
    second = twoDigits(text, 17);
    if (hour === NOT_PLAIN || minute === NOT_PLAIN || second === NOT_PLAIN) return undefined;
    let index = 19;
    const mark = charCodeAt.call(text, index);
    if (mark === CHAR_DOT || mark === CHAR_COMMA) {
      let fraction = 0;
      let digits = 0;
      for (index += 1; index < length && digits < 10; index += 1, digits += 1) {
        const digit = charCodeAt.call(text, index) - CHAR_0;
        if (digit >>> 0 > 9) break;
        fraction = fraction * 10 + digit;
      }
      if (digits === 0 || digits > 9) return undefined;
      fractionMs = (fraction / (POWERS_OF_TEN[digits] as number)) * 1000;
    }
    if (index < length) {
      const zone = charCodeAt.call(text, index);
      if ((zone !== CHAR_Z && zone !== CHAR_LOWER_Z) || index + 1 !== length) return undefined;
    }
  }
  // Invalid parts are a definite "not a timestamp", exactly as in the full pattern's checks.
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 24 || minute > 59 || second > 60) return Number.NaN;
  const year = century * 100 + yearInCentury;
  // Date.UTC reads years 0–99 as 1900–1999; leave those to it.
  if (year < 100) return Date.UTC(year, month - 1, day, hour, minute, second) + fractionMs;
  // The rows of one result mostly fall on a few dozen days: remember recent days' numbers.
  const dateKey = (year * 100 + month) * 100 + day;
  const line = dateKey & (DAY_CACHE_SIZE - 1);
  let days: number;
  if (dayCacheKeys[line] === dateKey) days = dayCacheDays[line] as number;
  else {
    days = daysFromCivil(year, month, day);
    dayCacheKeys[line] = dateKey;
    dayCacheDays[line] = days;
  }
  return days * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + fractionMs;
}

/** A direct-mapped cache of day numbers by `yyyymmdd`: consecutive days land on consecutive lines. */
const DAY_CACHE_SIZE = 128;
const dayCacheKeys = new Int32Array(DAY_CACHE_SIZE).fill(-1);
const dayCacheDays = new Float64Array(DAY_CACHE_SIZE);

/**
 * Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's `days_from_civil`), in integer
 * arithmetic. A day past the month's end rolls over into the next month, as in `Date.UTC`.
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const shiftedYear = month <= 2 ? year - 1 : year;
  const era = Math.floor(shiftedYear / 400);
  const yearOfEra = shiftedYear - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}
