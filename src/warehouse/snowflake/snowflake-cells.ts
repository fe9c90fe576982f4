/**
 * Snowflake values → JSON-safe Cells (see ../cells.ts). The adapter fetches NUMBER, DATE and
 * timestamps as text (`fetchAsString`) in formats its session sets (ISO dates, timestamps with their
 * offset, UTC), so nothing is rounded or read in the process's local time zone; VARIANT, OBJECT and
 * ARRAY come parsed; BINARY as a Buffer.
 */
import type { Cell } from '../../domain/index.js';
import { blobPlaceholder, decimalCell, floatCell, integerCell, isoTimestampFromText, jsonTextCell } from '../cells.js';

export interface SnowflakeColumnType {
  /** The driver's lower-case type name: `fixed`, `real`, `text`, `date`, `timestamp_ntz`, `variant` … */
  type: string;
  scale: number;
}

export function snowflakeCell(value: unknown, column: SnowflakeColumnType): Cell {
  if (value === null || value === undefined) return null;
  const type = column.type.toLowerCase();
  if (Buffer.isBuffer(value)) return blobPlaceholder(value.length);
  if (typeof value === 'string') {
    if (type === 'fixed' || type === 'number') return column.scale === 0 ? integerCell(value) : decimalCell(value);
    if (type === 'real' || type === 'float') return floatCell(Number(value));
    if (type.startsWith('timestamp')) return isoTimestampFromText(value);
    return value;
  }
  if (typeof value === 'number') return floatCell(value);
  if (typeof value === 'boolean') return value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  return jsonTextCell(value);
}

/** Session parameters the conversion above relies on, plus the statement limits every query runs under. */
export const SNOWFLAKE_SESSION_PARAMETERS = {
  TIMEZONE: 'UTC',
  DATE_OUTPUT_FORMAT: 'YYYY-MM-DD',
  TIMESTAMP_NTZ_OUTPUT_FORMAT: 'YYYY-MM-DD HH24:MI:SS.FF3',
  TIMESTAMP_LTZ_OUTPUT_FORMAT: 'YYYY-MM-DD HH24:MI:SS.FF3TZH:TZM',
  TIMESTAMP_TZ_OUTPUT_FORMAT: 'YYYY-MM-DD HH24:MI:SS.FF3TZH:TZM',
  // one statement per request, whatever text arrives
  MULTI_STATEMENT_COUNT: 1,
  QUERY_TAG: 'assay',
} as const;
