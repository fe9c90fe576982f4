import { describe, expect, it } from 'vitest';
import { planQueries } from '../../../src/llm/offline-analyst/planner/candidates.js';
import { sqlDialect } from '../../../src/llm/offline-analyst/sql/dialect.js';
import {
  EXPLORATION_SAMPLE_THRESHOLD,
  explorationSample,
  percentText,
  readThroughSample,
} from '../../../src/llm/offline-analyst/sql/sampling.js';
import type { AreaInfo, ColumnModel, TableModel } from '../../../src/llm/offline-analyst/types.js';

const duckdb = sqlDialect('duckdb');

function column(name: string, type: string, role: ColumnModel['role'], extra: Partial<ColumnModel> = {}): ColumnModel {
  return { name, type, nullable: true, role, ...extra };
}

function orders(rows: number): TableModel {
  return {
    qualified: 'main.orders',
    name: 'orders',
    rows,
    columns: [
      column('order_id', 'BIGINT', 'key', { distinct: rows }),
      column('product_id', 'BIGINT', 'reference', { distinct: 1000 }),
      column('ordered_at', 'TIMESTAMP', 'time'),
      column('device', 'VARCHAR', 'text', { distinct: 3, values: ['desktop', 'mobile', 'tablet'], words: 1 }),
      column('country', 'VARCHAR', 'text', { distinct: 4, values: ['DE', 'FR', 'JP', 'US'], words: 1 }),
      column('amount', 'DOUBLE', 'metric'),
      column('returned', 'BOOLEAN', 'flag'),
    ],
  };
}

const products: TableModel = {
  qualified: 'main.products',
  name: 'products',
  rows: 1000,
  columns: [
    column('product_id', 'BIGINT', 'key', { distinct: 1000 }),
    column('category', 'VARCHAR', 'text', { distinct: 3, values: ['books', 'games', 'toys'], words: 1 }),
    column('list_price', 'DOUBLE', 'metric'),
  ],
};

const areas: AreaInfo[] = [
  { id: 'segments', name: 'Segments', description: '', keywords: ['segment', 'rate'] },
  { id: 'trends', name: 'Trends', description: '', keywords: ['trend', 'month'] },
  { id: 'concentration', name: 'Concentration', description: '', keywords: ['share', 'concentration'] },
];

describe('the row budget of an exploration query', () => {
  it('reads a table at or below the threshold whole', () => {
    expect(explorationSample(duckdb, { qualified: 'main.orders', rows: 100_000 })).toBeUndefined();
    expect(explorationSample(duckdb, { qualified: 'main.orders', rows: EXPLORATION_SAMPLE_THRESHOLD })).toBeUndefined();
  });

  it('reads a table past the threshold through a block sample of about a million rows, and says how large', () => {
    const sample = explorationSample(duckdb, { qualified: 'main.orders', rows: 50_000_000 });
    expect(sample).toEqual({
      from: '(SELECT * FROM main.orders USING SAMPLE 2 PERCENT (system, 7))',
      percent: 2,
      text: 'on a 2 % sample of 50,000,000 rows',
    });
    expect(explorationSample(duckdb, { qualified: 'main.orders', rows: 3_000_000 })?.text).toBe('on a 33.3 % sample of 3,000,000 rows');
  });

  it('reads rows rather than blocks when asked to', () => {
    expect(explorationSample(duckdb, { qualified: 'main.orders', rows: 50_000_000 }, undefined, 'row')?.from).toBe(
      '(SELECT * FROM "main"."orders" USING SAMPLE 2 PERCENT (bernoulli, 7))',
    );
  });

  it('follows a custom budget', () => {
    const sample = explorationSample(duckdb, { qualified: 'main.orders', rows: 400_000 }, { rows: 4_000, threshold: 10_000 });
    expect(sample?.text).toBe('on a 1 % sample of 400,000 rows');
  });

  it("uses each engine's own sample form", () => {
    const table = { qualified: 'shop.orders', rows: 50_000_000 };
    expect(explorationSample(sqlDialect('postgres'), table)?.from).toBe(
      '(SELECT * FROM shop.orders TABLESAMPLE SYSTEM (2) REPEATABLE (7))',
    );
    expect(explorationSample(sqlDialect('mysql'), table)?.from).toBe('(SELECT * FROM `shop`.`orders` WHERE RAND(7) < 0.02)');
    expect(explorationSample(sqlDialect('clickhouse'), table)?.from).toMatch(/^\(SELECT \* FROM `shop`\.`orders` WHERE rand\(\) < \d+\)$/);
    expect(explorationSample(sqlDialect('snowflake'), table)?.from).toMatch(/SAMPLE BERNOULLI \(2\)/);
  });

  it('writes small percentages with two significant digits', () => {
    expect(percentText(0.123456)).toBe('0.12');
    expect(percentText(12.3456)).toBe('12.3');
  });
});

describe('reading a query through the sample', () => {
  const sample = explorationSample(duckdb, { qualified: 'main.orders', rows: 50_000_000 });

  it('replaces the FROM item the query is about and leaves joined tables and other aliases whole', () => {
    const sql = [
      'WITH edges AS (SELECT 1 AS e FROM main.orders t), x AS (SELECT product_id FROM main.orders c)',
      'SELECT COUNT(*) FROM main.orders t, edges e',
      'LEFT JOIN main.products d0 ON d0.product_id = t.product_id',
      'WHERE t.amount > (SELECT 1 FROM main.orders_archive t)',
    ].join('\n');
    const read = readThroughSample(duckdb, sql, { qualified: 'main.orders' }, sample as NonNullable<typeof sample>);
    expect(read.match(/USING SAMPLE 2 PERCENT/g)).toHaveLength(2);
    expect(read).toContain('FROM main.orders c');
    expect(read).toContain('LEFT JOIN main.products d0');
    expect(read).toContain('FROM main.orders_archive t');
  });
});

describe('when the analyst plans its queries', () => {
  it('reads a 50M-row fact table through the sample in every query about it and says so in purpose and thinking', () => {
    const plan = planQueries(duckdb, [orders(50_000_000), products], areas);
    const aboutOrders = plan.filter((query) => query.family.endsWith(':main.orders'));
    expect(aboutOrders.length).toBeGreaterThan(3);
    expect(aboutOrders.some((query) => query.family.startsWith('monthly:'))).toBe(true);
    expect(aboutOrders.some((query) => query.family.startsWith('segment:'))).toBe(true);
    for (const query of aboutOrders) {
      expect(query.sql).not.toMatch(/FROM main\.orders t\b/);
      // per-period counts read a row sample: a block's rows are neighbours in time
      const periodic = /^(monthly|segment-trend|segment-spikes|segment-trends):/.test(query.family);
      expect(query.sql).toContain(periodic ? 'USING SAMPLE 2 PERCENT (bernoulli, 7)' : 'USING SAMPLE 2 PERCENT (system, 7)');
      expect(query.purpose).toContain('(main.orders, on a 2 % sample of 50,000,000 rows)');
      expect(query.thinking).toContain('on a 2 % sample of 50,000,000 rows');
    }
    // the small dimension table is still read whole
    for (const query of plan.filter((item) => item.family.endsWith(':main.products'))) {
      expect(query.sql).not.toMatch(/SAMPLE/);
      expect(query.purpose).not.toMatch(/sample/);
    }
  });

  it('plans exactly the queries of before for a table of demo size', () => {
    const plan = planQueries(duckdb, [orders(100_000), products], areas);
    expect(plan.length).toBeGreaterThan(3);
    for (const query of plan) {
      expect(query.sql).not.toMatch(/SAMPLE/);
      expect(query.purpose).not.toMatch(/sample/);
      expect(query.thinking).not.toMatch(/sample/);
    }
  });
});
