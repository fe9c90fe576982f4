import { describe, expect, it } from 'vitest';
import { sqlDialect } from '../../../src/llm/offline-analyst/sql/dialect.js';
import { estimateDistinct } from '../../../src/llm/offline-analyst/sql/profile-query.js';
import { sqlSyntaxFor } from '../../../src/warehouse/sql-syntax/index.js';
import { miningSample } from '../../../src/discovery/mining/mine.js';
import { MINING_BLOCK_SAMPLE_THRESHOLD } from '../../../src/discovery/mining/profile.js';

const orders = { schema: 'shop', name: 'orders' };

describe('approximate distinct counts per dialect', () => {
  it.each([
    ['duckdb', 'CAST(approx_count_distinct("c") AS DOUBLE)'],
    ['clickhouse', 'toFloat64(uniq(`c`))'],
    ['bigquery', 'CAST(APPROX_COUNT_DISTINCT(`c`) AS FLOAT64)'],
    ['snowflake', 'CAST(APPROX_COUNT_DISTINCT("c") AS DOUBLE)'],
    // no sketch in core: the exact count, over the sample the caller reads
    ['postgres', 'CAST(count(DISTINCT "c") AS DOUBLE PRECISION)'],
    ['mysql', 'CAST(COUNT(DISTINCT `c`) AS DOUBLE)'],
  ] as const)('%s writes %s', (dialect, expected) => {
    const syntax = sqlSyntaxFor(dialect);
    expect(syntax.approxDistinct(syntax.identifier('c'))).toBe(expected);
  });
});

describe('uniform samples per dialect', () => {
  it.each([
    ['duckdb', '(SELECT * FROM "shop"."orders" USING SAMPLE 1 PERCENT (bernoulli, 7))'],
    ['postgres', '(SELECT * FROM "shop"."orders" TABLESAMPLE BERNOULLI (1) REPEATABLE (7))'],
    ['snowflake', '(SELECT * FROM "shop"."orders" SAMPLE BERNOULLI (1))'],
    ['bigquery', '(SELECT * FROM `shop`.`orders` TABLESAMPLE SYSTEM (1 PERCENT))'],
    ['mysql', '(SELECT * FROM `shop`.`orders` WHERE RAND(7) < 0.01)'],
    ['clickhouse', '(SELECT * FROM `shop`.`orders` WHERE rand() < 42949672)'],
  ] as const)('%s reads about 500,000 of 50,000,000 rows as %s', (dialect, expected) => {
    expect(sqlSyntaxFor(dialect).sampledTable(orders, 50_000_000, 500_000)).toBe(expected);
  });

  it('reads a table no larger than the sample whole', () => {
    for (const dialect of ['duckdb', 'postgres', 'mysql', 'clickhouse', 'bigquery', 'snowflake'] as const)
      expect(sqlSyntaxFor(dialect).sampledTable(orders, 400_000, 500_000)).not.toMatch(/SAMPLE|RAND|rand\(/);
  });
});

describe('mining samples of a table far past the sample size', () => {
  const table = (rowCount: number) => ({ ...orders, rowCount });

  it('read whole blocks on DuckDB and PostgreSQL above 10,000,000 rows, so a statement costs the sample, not the table', () => {
    expect(miningSample(sqlSyntaxFor('duckdb'), table(50_000_000))).toBe(
      '(SELECT * FROM "shop"."orders" USING SAMPLE 1 PERCENT (system, 7))',
    );
    expect(miningSample(sqlSyntaxFor('postgres'), table(50_000_000))).toBe(
      '(SELECT * FROM "shop"."orders" TABLESAMPLE SYSTEM (1) REPEATABLE (7))',
    );
  });

  it('stay row samples up to 10,000,000 rows, and on engines without a block sample', () => {
    expect(miningSample(sqlSyntaxFor('duckdb'), table(MINING_BLOCK_SAMPLE_THRESHOLD))).toBe(
      '(SELECT * FROM "shop"."orders" USING SAMPLE 5 PERCENT (bernoulli, 7))',
    );
    expect(miningSample(sqlSyntaxFor('mysql'), table(50_000_000))).toBe('(SELECT * FROM `shop`.`orders` WHERE RAND(7) < 0.01)');
    for (const dialect of ['mysql', 'clickhouse', 'bigquery', 'snowflake'] as const)
      expect(sqlSyntaxFor(dialect).blockSampledTable, dialect).toBeUndefined();
  });

  it('read a table no larger than the sample whole', () => {
    expect(sqlSyntaxFor('duckdb').blockSampledTable?.(orders, 400_000, 500_000)).toBe('"shop"."orders"');
  });
});

describe("the offline analyst's block sample", () => {
  it('is USING SAMPLE … (system) on DuckDB and TABLESAMPLE SYSTEM on PostgreSQL, both repeatable', () => {
    expect(sqlDialect('duckdb').blockSample?.('main.orders', 2)).toBe('main.orders USING SAMPLE 2 PERCENT (system, 7)');
    expect(sqlDialect('postgres').blockSample?.('main.orders', 2)).toBe('main.orders TABLESAMPLE SYSTEM (2) REPEATABLE (7)');
    expect(sqlDialect('duckdb').blockSample?.('t', 100 / 3)).toBe('t USING SAMPLE 33.3 PERCENT (system, 7)');
  });

  it('is not offered where the engine has no seeded block sample a CTE can read (the whole table is profiled)', () => {
    for (const dialect of ['mysql', 'clickhouse', 'bigquery', 'snowflake'] as const)
      expect(sqlDialect(dialect).blockSample, dialect).toBeUndefined();
  });
});

describe('scaling a distinct count seen in a sample up to the table', () => {
  it('reads a sample of distinct values as a key of the whole table', () => {
    expect(estimateDistinct(1_000_000, 1_000_000, 50_000_000)).toBe(50_000_000);
  });

  it('recovers a value repeated on ten rows (a customer with ten orders) within a few per cent', () => {
    // 5M customers, 50M orders, a 1M-row sample: each customer seen 0.2 times on average
    const seen = 5_000_000 * (1 - Math.exp(-1_000_000 / 5_000_000));
    expect(estimateDistinct(Math.round(seen), 1_000_000, 50_000_000) / 5_000_000).toBeCloseTo(1, 2);
  });

  it('keeps a count that every sample sees whole (a dozen countries)', () => {
    expect(estimateDistinct(12, 1_000_000, 50_000_000)).toBe(12);
  });

  it('changes nothing when the whole table was read', () => {
    expect(estimateDistinct(640, 20_000, 20_000)).toBe(640);
  });
});
