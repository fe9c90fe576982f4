/** MySQL/MariaDB wire values → JSON-safe Cells (see ../cells.ts), and the protocol's type names. */
import type { Cell } from '../../domain/index.js';
import { blobPlaceholder, decimalCell, floatCell, integerCell, isoTimestampFromText, jsonTextCell } from '../cells.js';

/** Column type codes of the MySQL protocol. */
const TYPE_NAMES: Record<number, string> = {
  0: 'DECIMAL',
  1: 'TINYINT',
  2: 'SMALLINT',
  3: 'INT',
  4: 'FLOAT',
  5: 'DOUBLE',
  6: 'NULL',
  7: 'TIMESTAMP',
  8: 'BIGINT',
  9: 'MEDIUMINT',
  10: 'DATE',
  11: 'TIME',
  12: 'DATETIME',
  13: 'YEAR',
  14: 'DATE',
  15: 'VARCHAR',
  16: 'BIT',
  245: 'JSON',
  246: 'DECIMAL',
  247: 'ENUM',
  248: 'SET',
  249: 'TINYBLOB',
  250: 'MEDIUMBLOB',
  251: 'LONGBLOB',
  252: 'BLOB',
  253: 'VARCHAR',
  254: 'CHAR',
  255: 'GEOMETRY',
};
const TINY = 1;
const INTEGER_64 = 8;
const DECIMALS = new Set([0, 246]);
const TIMESTAMPS = new Set([7, 12]);
const BIT = 16;
/** The character set number of binary strings (BLOB, BINARY, VARBINARY). */
const BINARY_CHARSET = 63;
const TEXT_BLOB_TYPES = new Set([249, 250, 251, 252]);

export interface MysqlField {
  columnType?: number | undefined;
  characterSet?: number | undefined;
  columnLength?: number | undefined;
}

/** `tinyint(1)`, MySQL's BOOLEAN: the column itself, or an aggregate that keeps its type (MAX, MIN). */
function isFlag(field: MysqlField): boolean {
  return field.columnType === TINY && field.columnLength === 1;
}

/** The engine's name for a result column's type; text BLOBs are TEXT, `tinyint(1)` is BOOLEAN. */
export function mysqlTypeName(field: MysqlField): string {
  const code = field.columnType ?? -1;
  if (isFlag(field)) return 'BOOLEAN';
  if (TEXT_BLOB_TYPES.has(code) && field.characterSet !== BINARY_CHARSET) return 'TEXT';
  if ((code === 253 || code === 254) && field.characterSet === BINARY_CHARSET) return code === 253 ? 'VARBINARY' : 'BINARY';
  return TYPE_NAMES[code] ?? `TYPE_${code}`;
}

/** Read with `dateStrings`, `supportBigNumbers` and `bigNumberStrings`: dates, 64-bit integers and decimals arrive as text. */
export function mysqlCell(value: unknown, field: MysqlField): Cell {
  if (value === null || value === undefined) return null;
  const code = field.columnType ?? -1;
  if (Buffer.isBuffer(value)) {
    if (code === BIT) {
      // BIT(1) is a flag; wider bit fields are unsigned integers
      if (field.columnLength === 1) return value[0] === 1;
      return integerCell(value.reduce((total, byte) => (total << 8n) | BigInt(byte), 0n));
    }
    return blobPlaceholder(value.length);
  }
  if (typeof value === 'string') {
    if (code === INTEGER_64) return integerCell(value);
    if (DECIMALS.has(code)) return decimalCell(value);
    if (TIMESTAMPS.has(code)) return isoTimestampFromText(value);
    return value;
  }
  // a flag reads true/false as on every other engine; any other value a tinyint(1) may hold stays a number
  if (typeof value === 'number' && isFlag(field) && (value === 0 || value === 1)) return value === 1;
  if (typeof value === 'number') return floatCell(value);
  if (typeof value === 'boolean') return value;
  if (typeof value === 'bigint') return integerCell(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  return jsonTextCell(value);
}
