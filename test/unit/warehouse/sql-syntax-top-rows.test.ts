import { describe, expect, it } from 'vitest';
import { SQL_DIALECTS } from '../../../src/warehouse/index.js';
import { sqlSyntaxFor } from '../../../src/warehouse/sql-syntax/index.js';

const SOURCE = '(\nSELECT 0 AS col, x AS v, count(*) AS n FROM t GROUP BY x\n)';

describe('when the engine keeps the first rows of each group', () => {
  it('ranks with row_number() on the engines with window functions, as mining wrote it before', () => {
    for (const dialect of SQL_DIALECTS.filter((name) => name !== 'clickhouse')) {
      expect(sqlSyntaxFor(dialect).topRowsPerGroup(SOURCE, 'col, v, n', 'col', 'n DESC, v', 20)).toBe(
        `SELECT col, v, n FROM (SELECT col, v, n, row_number() OVER (PARTITION BY col ORDER BY n DESC, v) AS rk FROM ${SOURCE} AS counted) AS ranked WHERE rk <= 20 ORDER BY col, n DESC, v`,
      );
    }
  });

  it('uses LIMIT n BY on ClickHouse, which every version has (window functions are 21.x and later)', () => {
    expect(sqlSyntaxFor('clickhouse').topRowsPerGroup(SOURCE, 'col, v, n', 'col', 'n DESC, v', 20)).toBe(
      `SELECT col, v, n FROM ${SOURCE} AS counted ORDER BY col, n DESC, v LIMIT 20 BY col`,
    );
  });

  it('refuses a count that is not a finite number', () => {
    expect(() => sqlSyntaxFor('duckdb').topRowsPerGroup(SOURCE, 'col', 'col', 'v', Number.NaN)).toThrow(RangeError);
  });
});
