/** ClickHouse JSON values → JSON-safe Cells (see ../cells.ts), by the column's ClickHouse type. */
import type { Cell } from '../../domain/index.js';
import { decimalCell, floatCell, integerCell, isoTimestampFromText, jsonTextCell } from '../cells.js';

/** `Nullable(LowCardinality(String))` → `{ type: 'String', nullable: true }`. */
export function unwrapClickhouseType(type: string): { type: string; nullable: boolean } {
  let inner = type.trim();
  let nullable = false;
  for (;;) {
    const match = /^(Nullable|LowCardinality)\((.*)\)$/.exec(inner);
    if (match === null) return { type: inner, nullable };
    if (match[1] === 'Nullable') nullable = true;
    inner = match[2] ?? inner;
  }
}

/** Read with `output_format_json_quote_64bit_integers` (the default): 64-bit and wider integers arrive as text. */
export function clickhouseCell(value: unknown, columnType: string): Cell {
  if (value === null || value === undefined) return null;
  const { type } = unwrapClickhouseType(columnType);
  if (/^U?Int(64|128|256)$/.test(type) && (typeof value === 'string' || typeof value === 'number')) return integerCell(value);
  if (/^Decimal/.test(type)) return decimalCell(String(value));
  if (/^DateTime/.test(type) && typeof value === 'string') return isoTimestampFromText(value);
  if (/^Float/.test(type) && typeof value === 'string') return floatCell(Number(value));
  if (typeof value === 'number') return floatCell(value);
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  return jsonTextCell(value);
}
