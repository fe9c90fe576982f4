/** DuckDB values → JSON-safe Cells (see ../cells.ts for the rules). */
import {
  DuckDBArrayValue,
  DuckDBBlobValue,
  DuckDBDateValue,
  DuckDBDecimalValue,
  DuckDBListValue,
  DuckDBMapValue,
  DuckDBStructValue,
  DuckDBTimestampMillisecondsValue,
  DuckDBTimestampNanosecondsValue,
  DuckDBTimestampSecondsValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  DuckDBUnionValue,
  DuckDBVariantValue,
  type DuckDBValue,
} from '@duckdb/node-api';
import type { Cell } from '../../domain/index.js';
import {
  blobPlaceholder,
  decimalCell,
  floatCell,
  integerCell,
  isoDateFromEpochDays,
  isoTimestampFromEpochMillis,
  jsonTextCell,
} from '../cells.js';

/** Nested values for JSON text: same scalar rules, structure kept. */
function plainValue(value: DuckDBValue): unknown {
  if (value instanceof DuckDBListValue || value instanceof DuckDBArrayValue) return value.items.map(plainValue);
  if (value instanceof DuckDBStructValue) {
    return Object.fromEntries(Object.entries(value.entries).map(([key, entry]) => [key, plainValue(entry)]));
  }
  if (value instanceof DuckDBMapValue)
    return value.entries.map((entry) => ({ key: plainValue(entry.key), value: plainValue(entry.value) }));
  if (value instanceof DuckDBUnionValue || value instanceof DuckDBVariantValue) return plainValue(value.value);
  return duckdbCell(value);
}

export function duckdbCell(value: DuckDBValue): Cell {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') return floatCell(value);
  if (typeof value === 'bigint') return integerCell(value);
  if (value instanceof DuckDBDecimalValue) return decimalCell(value.toString());
  if (value instanceof DuckDBDateValue) return value.isFinite ? isoDateFromEpochDays(value.days, value.toString()) : value.toString();
  if (value instanceof DuckDBTimestampValue || value instanceof DuckDBTimestampTZValue) {
    return isoTimestampFromEpochMillis(Number(value.micros / 1000n), value.toString());
  }
  if (value instanceof DuckDBTimestampMillisecondsValue) return isoTimestampFromEpochMillis(Number(value.millis), value.toString());
  if (value instanceof DuckDBTimestampSecondsValue) return isoTimestampFromEpochMillis(Number(value.seconds) * 1000, value.toString());
  if (value instanceof DuckDBTimestampNanosecondsValue)
    return isoTimestampFromEpochMillis(Number(value.nanos / 1_000_000n), value.toString());
  if (value instanceof DuckDBBlobValue) return blobPlaceholder(value.bytes.length);
  if (
    value instanceof DuckDBListValue ||
    value instanceof DuckDBArrayValue ||
    value instanceof DuckDBStructValue ||
    value instanceof DuckDBMapValue
  ) {
    return jsonTextCell(plainValue(value));
  }
  if (value instanceof DuckDBUnionValue || value instanceof DuckDBVariantValue) return plainValueCell(value.value);
  // TIME, INTERVAL, UUID, BIT, GEOMETRY …: the engine's own text form
  return value.toString();
}

function plainValueCell(value: DuckDBValue): Cell {
  const plain = plainValue(value);
  return typeof plain === 'object' && plain !== null ? jsonTextCell(plain) : (plain as Cell);
}
