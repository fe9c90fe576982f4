/** Mapping a warehouse column type (DuckDB, PostgreSQL spellings) to the digest's column kind. */
import type { ColumnKind } from '../domain/index.js';

const NUMBER_TYPES = new Set([
  'TINYINT',
  'SMALLINT',
  'INTEGER',
  'INT',
  'INT1',
  'INT2',
  'INT4',
  'INT8',
  'BIGINT',
  'HUGEINT',
  'UTINYINT',
  'USMALLINT',
  'UINTEGER',
  'UBIGINT',
  'UHUGEINT',
  'SMALLSERIAL',
  'SERIAL',
  'BIGSERIAL',
  'FLOAT',
  'FLOAT4',
  'FLOAT8',
  'REAL',
  'DOUBLE',
  'DOUBLE PRECISION',
  'DECIMAL',
  'NUMERIC',
  'MONEY',
]);
const STRING_TYPES = new Set([
  'VARCHAR',
  'TEXT',
  'CHAR',
  'BPCHAR',
  'CHARACTER',
  'CHARACTER VARYING',
  'STRING',
  'NAME',
  'UUID',
  'ENUM',
  'CITEXT',
]);
const BOOLEAN_TYPES = new Set(['BOOLEAN', 'BOOL', 'LOGICAL']);
const TIMESTAMP_TYPES = new Set([
  'DATE',
  'TIMESTAMP',
  'DATETIME',
  'TIMESTAMPTZ',
  'TIMESTAMP WITH TIME ZONE',
  'TIMESTAMP WITHOUT TIME ZONE',
  'TIMESTAMP_S',
  'TIMESTAMP_MS',
  'TIMESTAMP_NS',
  'TIMESTAMP_US',
]);

/**
 * The kind an engine type declares, or `undefined` when the type says nothing useful (intervals,
 * times of day, JSON, lists, structs): those columns are classified from their values instead.
 */
export function kindOfEngineType(engineType: string | undefined): ColumnKind | undefined {
  if (engineType === undefined) return undefined;
  const base = engineType
    .toUpperCase()
    .replace(/\(.*\)/, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (NUMBER_TYPES.has(base)) return 'number';
  if (STRING_TYPES.has(base)) return 'string';
  if (BOOLEAN_TYPES.has(base)) return 'boolean';
  if (TIMESTAMP_TYPES.has(base)) return 'timestamp';
  return undefined;
}
