/** PostgreSQL wire values → JSON-safe Cells (see ../cells.ts), and the driver's type parsers that make that possible. */
import pg from 'pg';
import type { Cell } from '../../domain/index.js';
import { blobPlaceholder, decimalCell, floatCell, integerCell, isoTimestampFromText, jsonTextCell } from '../cells.js';

const OID = {
  INT8: 20,
  NUMERIC: 1700,
  MONEY: 790,
  DATE: 1082,
  TIME: 1083,
  TIMETZ: 1266,
  TIMESTAMP: 1114,
  TIMESTAMPTZ: 1184,
  INTERVAL: 1186,
  JSON: 114,
  JSONB: 3802,
} as const;

/** Types kept as the server's text: the driver would turn them into lossy numbers, local-time Dates or objects. */
const RAW_TEXT_OIDS: ReadonlySet<number> = new Set(Object.values(OID));

/** Parsers for a pool: raw text for the types above, the driver's defaults (booleans, small numbers, bytea, arrays) for the rest. */
export const postgresTypeParsers: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    RAW_TEXT_OIDS.has(oid)
      ? (value: string) => value
      : pg.types.getTypeParser(oid, format ?? 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

export function postgresCell(value: unknown, typeOid: number): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return floatCell(value);
  if (typeof value === 'string') {
    if (typeOid === OID.INT8) return integerCell(value);
    if (typeOid === OID.NUMERIC) return decimalCell(value);
    if (typeOid === OID.TIMESTAMP || typeOid === OID.TIMESTAMPTZ) return isoTimestampFromText(value);
    return value;
  }
  if (Buffer.isBuffer(value)) return blobPlaceholder(value.length);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  return jsonTextCell(value);
}
