/** Infers a column's analytical role from its name and engine type (pure; used by both adapters). */
import type { ColumnCategory } from './port.js';

/** DATE, TIME, TIMESTAMP, TIMESTAMP_NS, TIMESTAMPTZ, "timestamp with time zone", DATETIME. */
const TEMPORAL_TYPE = /^(date|time|timestamp|datetime)/i;
/** MySQL/MariaDB's BOOLEAN is `tinyint(1)`: a flag, not a number to sum. */
const FLAG_TYPE = /^tinyint\(1\)$/i;
const NUMERIC_TYPE =
  /^(tinyint|smallint|integer|int|int2|int4|int8|bigint|hugeint|utinyint|usmallint|uinteger|ubigint|uhugeint|decimal|numeric|real|float|float4|float8|double|money)\b/i;
/** `id`, `user_id`, `userId`, `order_key`, `uuid`: identifiers, not quantities. */
const IDENTIFIER_NAME = /(^id$|_id$|[a-z]Id$|_key$|^uuid$|_uuid$)/;
/** Numbers that name a calendar position are time axes, not metrics. */
const CALENDAR_PART_NAME = /(^|_)(year|quarter|month|week|day|hour)$/i;
/** Text columns named like timestamps (`created_at` stored as VARCHAR in CSV-born tables). */
const TIME_NAME = /(_at|_date|_time|_ts)$|^(date|time|timestamp)$/i;

/**
 * `primary_key` for the table's key (declared, or named `id`), `time` for temporal types and
 * calendar-shaped names, `metric` for numbers that are not identifiers, `dimension` otherwise.
 * Key-shaped numbers (`user_id`) are dimensions: summing them means nothing.
 */
export function inferColumnCategory(name: string, type: string, hints?: { primaryKey?: boolean }): ColumnCategory {
  if (hints?.primaryKey === true || name.toLowerCase() === 'id') return 'primary_key';
  const trimmedType = type.trim();
  if (TEMPORAL_TYPE.test(trimmedType)) return 'time';
  if (IDENTIFIER_NAME.test(name) || IDENTIFIER_NAME.test(name.toLowerCase())) return 'dimension';
  if (FLAG_TYPE.test(trimmedType)) return 'dimension';
  if (NUMERIC_TYPE.test(trimmedType)) return CALENDAR_PART_NAME.test(name) ? 'time' : 'metric';
  if (TIME_NAME.test(name)) return 'time';
  return 'dimension';
}
