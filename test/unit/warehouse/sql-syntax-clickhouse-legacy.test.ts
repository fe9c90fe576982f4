import { describe, expect, it } from 'vitest';
import { buildRelation } from '../../../src/discovery/claims/relation.js';
import type { ClaimDerived } from '../../../src/domain/index.js';
import { SQL_DIALECTS } from '../../../src/warehouse/index.js';
import { comparedOperand, notTrue, sqlSyntaxFor } from '../../../src/warehouse/sql-syntax/index.js';

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

describe('when a column is compared with a fractional number', () => {
  it('compares as double on ClickHouse, which compares no Decimal with a Float64 literal', () => {
    const syntax = sqlSyntaxFor('clickhouse');
    expect(comparedOperand(syntax, 't.`amount`', [7.95])).toBe('toFloat64(t.`amount`)');
    expect(comparedOperand(syntax, 't.`amount`', [1, 2.5])).toBe('toFloat64(t.`amount`)');
  });

  it('leaves whole numbers, text and every other engine as written', () => {
    expect(comparedOperand(sqlSyntaxFor('clickhouse'), 't.`n`', [1, 2])).toBe('t.`n`');
    expect(comparedOperand(sqlSyntaxFor('clickhouse'), 't.`s`', ['7.95'])).toBe('t.`s`');
    for (const dialect of SQL_DIALECTS.filter((name) => name !== 'clickhouse'))
      expect(comparedOperand(sqlSyntaxFor(dialect), 't.amount', [7.95])).toBe('t.amount');
  });
});

describe('when a condition must be false or NULL', () => {
  it('is IS NOT TRUE where the engine has it and NOT coalesce(…, 0) on ClickHouse', () => {
    expect(notTrue(sqlSyntaxFor('duckdb'), 'x = 1')).toBe('(x = 1) IS NOT TRUE');
    expect(notTrue(sqlSyntaxFor('clickhouse'), 'x = 1')).toBe('NOT coalesce((x = 1), 0)');
  });
});

describe("when a table's related values are joined on an engine with one JOIN per SELECT", () => {
  const column = (name: string, type = 'Int32') => ({ name, type, nullable: false, category: 'dimension' as const });
  const table = (name: string, columns: ReturnType<typeof column>[]) => ({
    schema: 'shop',
    name,
    qualified: `shop.${name}`,
    columns,
    rowCount: 10,
  });
  const tables = [
    table('orders', [column('order_id'), column('customer_id'), column('amount', 'Decimal(12, 2)')]),
    table('customers', [column('customer_id'), column('region', 'String'), column('tier', 'String')]),
    table('refunds', [column('refund_id'), column('order_id')]),
  ];
  const derived: ClaimDerived[] = [
    { from: 'parent', name: 'customers.region', table: 'shop.customers', link: 'customer_id', key: 'customer_id', column: 'region' },
    { from: 'parent', name: 'customers.tier', table: 'shop.customers', link: 'customer_id', key: 'customer_id', column: 'tier' },
    { from: 'child', name: 'refunds.exists', table: 'shop.refunds', link: 'order_id', key: 'order_id', aggregate: 'exists' },
  ];

  it('nests one SELECT per join on ClickHouse, passes on every value a join reads, and reads each by its derived name', () => {
    const relation = buildRelation(sqlSyntaxFor('clickhouse'), 'shop.orders', derived, tables);
    expect(relation.from).toBe(
      [
        '(SELECT t.*, d1.v AS `refunds.exists` FROM (SELECT t.*, d0.`region` AS `customers.region`, d0.`tier` AS `customers.tier` FROM `shop`.`orders` AS t',
        'LEFT JOIN `shop`.`customers` AS d0 ON d0.`customer_id` = t.`customer_id`) AS t',
        'LEFT JOIN (SELECT c.`order_id` AS k, count(*) AS v FROM `shop`.`refunds` AS c GROUP BY c.`order_id`) AS d1 ON d1.k = t.`order_id`) AS t',
      ].join('\n'),
    );
    expect(relation.column('customers.region', 'segment')).toBe('t.`customers.region`');
    expect(relation.column('customers.tier', 'segment')).toBe('t.`customers.tier`');
    expect(relation.column('refunds.exists', 'segment')).toBe('(CASE WHEN t.`refunds.exists` > 0 THEN 1 ELSE 0 END)');
    expect(relation.column('amount', 'metric')).toBe('t.`amount`');
  });

  it('keeps the flat LEFT JOIN list on the other engines', () => {
    const relation = buildRelation(sqlSyntaxFor('duckdb'), 'shop.orders', derived, tables);
    expect(relation.from).toBe(
      [
        '"shop"."orders" AS t',
        'LEFT JOIN "shop"."customers" AS d0 ON d0."customer_id" = t."customer_id"',
        'LEFT JOIN (SELECT c."order_id" AS k, count(*) AS v FROM "shop"."refunds" AS c GROUP BY c."order_id") AS d1 ON d1.k = t."order_id"',
      ].join('\n'),
    );
    expect(relation.column('customers.tier', 'segment')).toBe('d0."tier"');
    expect(relation.column('refunds.exists', 'segment')).toBe('(CASE WHEN d1.v > 0 THEN TRUE ELSE FALSE END)');
  });
});
