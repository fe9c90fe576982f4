/**
 * BigQuery values, as `@google-cloud/bigquery` returns them from `getQueryResults` (with
 * `wrapIntegers: true`), → JSON-safe Cells (see ../cells.ts): `BigQueryInt`, `Big` decimals,
 * `BigQueryDate`/`BigQueryDatetime`/`BigQueryTimestamp`/`BigQueryTime` and `Geography` wrappers
 * (`{ value }`), Buffers for BYTES, objects for STRUCT and arrays for REPEATED fields.
 */
import type { Cell } from '../../domain/index.js';
import { blobPlaceholder, decimalCell, floatCell, integerCell, isoTimestampFromText, jsonTextCell } from '../cells.js';

export interface BigqueryField {
  name?: string | undefined;
  type?: string | undefined;
  mode?: string | undefined;
}

function wrapped(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null && 'value' in value && typeof value.value === 'string' ? value.value : undefined;
}

export function bigqueryCell(value: unknown, field: BigqueryField): Cell {
  if (value === null || value === undefined) return null;
  if (field.mode === 'REPEATED' || Array.isArray(value)) return jsonTextCell(value);
  const type = (field.type ?? '').toUpperCase();
  const text = wrapped(value);
  switch (type) {
    case 'INTEGER':
    case 'INT64':
      return integerCell(text ?? (typeof value === 'number' ? Math.trunc(value) : String(value)));
    case 'FLOAT':
    case 'FLOAT64':
      return floatCell(Number(value));
    case 'NUMERIC':
    case 'BIGNUMERIC':
      return decimalCell(String(value));
    case 'BOOLEAN':
    case 'BOOL':
      return Boolean(value);
    case 'BYTES':
      return Buffer.isBuffer(value) ? blobPlaceholder(value.length) : String(value);
    case 'DATE':
    case 'TIME':
    case 'GEOGRAPHY':
      return text ?? String(value);
    case 'DATETIME':
      return isoTimestampFromText(text ?? String(value));
    case 'TIMESTAMP': {
      const stamp = text ?? String(value);
      // the client already gives ISO-8601 with Z; older versions gave epoch seconds
      if (/^-?\d+(\.\d+)?$/.test(stamp)) return new Date(Number(stamp) * 1000).toISOString();
      return stamp.endsWith('Z') ? stamp : isoTimestampFromText(stamp);
    }
    case 'RECORD':
    case 'STRUCT':
    case 'JSON':
      return typeof value === 'string' ? value : jsonTextCell(value);
    default:
      return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : jsonTextCell(value);
  }
}
