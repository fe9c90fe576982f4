import { describe, expect, it } from 'vitest';
import { deduplicateColumnNames, decimalCell, integerCell, isoTimestampFromText, jsonTextCell } from '../../../src/warehouse/cells.js';
import { mysqlCell, mysqlTypeName } from '../../../src/warehouse/mysql/mysql-cells.js';

describe('when engine values become cells', () => {
  it('keeps safe integers as numbers and larger ones as exact strings', () => {
    expect(integerCell(42n)).toBe(42);
    expect(integerCell('9007199254740991')).toBe(9007199254740991);
    expect(integerCell(9007199254740993n)).toBe('9007199254740993');
    expect(integerCell(-170141183460469231731687303715884105728n)).toBe('-170141183460469231731687303715884105728');
  });

  it('turns decimals into numbers', () => {
    expect(decimalCell('12.50')).toBe(12.5);
    expect(decimalCell('NaN')).toBe('NaN');
  });

  it.each([
    ['2024-03-01 10:11:12', '2024-03-01T10:11:12.000Z'],
    ['2024-03-01 10:11:12.345678', '2024-03-01T10:11:12.345Z'],
    ['2024-03-01 10:00:00+02', '2024-03-01T08:00:00.000Z'],
    ['2024-03-01 10:00:00-05:30', '2024-03-01T15:30:00.000Z'],
    ['infinity', 'infinity'],
  ])('reads the timestamp %s as %s', (text, iso) => {
    expect(isoTimestampFromText(text)).toBe(iso);
  });

  it('writes nested values as JSON text, big integers included', () => {
    expect(jsonTextCell({ a: [1, 2], b: 12345678901234567890n })).toBe('{"a":[1,2],"b":"12345678901234567890"}');
  });

  it('suffixes repeated column names so no value is lost', () => {
    expect(deduplicateColumnNames(['id', 'id', 'name', 'id'])).toEqual(['id', 'id_2', 'name', 'id_3']);
  });
});

describe('MySQL/MariaDB result cells', () => {
  const flag = { columnType: 1, columnLength: 1 };
  it('reads a tinyint(1) column (BOOLEAN) as true/false, as every other engine returns a flag', () => {
    expect([mysqlCell(1, flag), mysqlCell(0, flag), mysqlCell(null, flag)]).toEqual([true, false, null]);
    expect(mysqlTypeName(flag)).toBe('BOOLEAN');
  });

  it('keeps other values of a tinyint(1), wider tinyints and integer expressions as numbers', () => {
    expect(mysqlCell(2, flag)).toBe(2);
    expect(mysqlCell(1, { columnType: 1, columnLength: 4 })).toBe(1);
    // `SELECT 1`, `x = 1` and CASE … THEN 1 arrive as INT/BIGINT of length 1
    expect(mysqlCell(1, { columnType: 3, columnLength: 1 })).toBe(1);
    expect(mysqlTypeName({ columnType: 3, columnLength: 1 })).toBe('INT');
  });
});
