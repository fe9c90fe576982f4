import { describe, expect, it } from 'vitest';
import { clickhouseOlderThan } from '../../../src/warehouse/clickhouse/clickhouse-warehouse.js';
import { guardClickhouseSql } from '../../../src/warehouse/clickhouse/clickhouse-sql-guard.js';
import { clickhouseSyntax } from '../../../src/warehouse/sql-syntax/clickhouse.js';
import { inlineCtes } from '../../../src/warehouse/sql-tree/tree-cte-inline.js';

const inline = (sql: string) => inlineCtes(sql, 'clickhouse', clickhouseSyntax.identifier);

describe('when a statement with CTEs is written out for a server without CTE subqueries', () => {
  const cases: Array<{ name: string; sql: string; expected: string }> = [
    {
      name: 'a reference in FROM becomes the subquery under the CTE name',
      sql: 'WITH a AS (SELECT x FROM db.t) SELECT x FROM a',
      expected: 'SELECT x FROM (SELECT x FROM db.t) AS `a`',
    },
    {
      name: 'an alias the reference had is kept',
      sql: 'WITH a AS (SELECT x FROM db.t) SELECT q.x FROM a AS q',
      expected: 'SELECT q.x FROM (SELECT x FROM db.t) AS q',
    },
    {
      name: 'an alias without AS is kept',
      sql: 'WITH a AS (SELECT x FROM db.t) SELECT q.x FROM a q',
      expected: 'SELECT q.x FROM (SELECT x FROM db.t) q',
    },
    {
      name: 'a CTE that reads an earlier CTE carries it inlined',
      sql: 'WITH a AS (SELECT x FROM db.t), b AS (SELECT x + 1 AS y FROM a) SELECT y FROM b',
      expected: 'SELECT y FROM (SELECT x + 1 AS y FROM (SELECT x FROM db.t) AS `a`) AS `b`',
    },
    {
      name: 'a CTE referenced twice is written out twice',
      sql: 'WITH a AS (SELECT x FROM db.t) SELECT l.x FROM a AS l JOIN a AS r ON l.x = r.x',
      expected: 'SELECT l.x FROM (SELECT x FROM db.t) AS l JOIN (SELECT x FROM db.t) AS r ON l.x = r.x',
    },
    {
      name: 'a CTE read in an IN subquery and a scalar subquery is inlined there',
      sql: 'WITH a AS (SELECT x FROM db.t) SELECT (SELECT max(x) FROM a) AS m FROM db.u WHERE y IN (SELECT x FROM a)',
      expected:
        'SELECT (SELECT max(x) FROM (SELECT x FROM db.t) AS `a`) AS m FROM db.u WHERE y IN (SELECT x FROM (SELECT x FROM db.t) AS `a`)',
    },
    {
      name: 'a name an inner WITH defines again means the inner definition inside that query',
      sql: 'WITH a AS (SELECT 1 AS x) SELECT s.x, o.x FROM (WITH a AS (SELECT 2 AS x) SELECT x FROM a) AS s CROSS JOIN a AS o',
      expected: 'SELECT s.x, o.x FROM (SELECT x FROM (SELECT 2 AS x) AS `a`) AS s CROSS JOIN (SELECT 1 AS x) AS o',
    },
    {
      name: 'a qualified name is a table, not the CTE',
      sql: 'WITH t AS (SELECT 1 AS x) SELECT x FROM db.t',
      expected: 'SELECT x FROM db.t',
    },
    {
      name: 'a CTE whose own body names it reads the table of that name',
      sql: 'WITH orders AS (SELECT * FROM orders WHERE amount > 0) SELECT count() FROM orders',
      expected: 'SELECT count() FROM (SELECT * FROM orders WHERE amount > 0) AS `orders`',
    },
    {
      name: 'a CTE in a derived table and in a UNION branch is inlined',
      sql: 'WITH a AS (SELECT x FROM db.t) SELECT x FROM (SELECT x FROM a) AS s UNION ALL SELECT x FROM a',
      expected: 'SELECT x FROM (SELECT x FROM (SELECT x FROM db.t) AS `a`) AS s UNION ALL SELECT x FROM (SELECT x FROM db.t) AS `a`',
    },
    {
      name: 'multi-line statements keep their other text as written',
      sql: 'WITH a AS (\n  SELECT x\n  FROM db.t\n),\nb AS (SELECT x FROM a)\nSELECT x\nFROM b\nORDER BY x',
      expected: 'SELECT x\nFROM (SELECT x FROM (\n  SELECT x\n  FROM db.t\n) AS `a`) AS `b`\nORDER BY x',
    },
    {
      name: 'an inner WITH whose CTE reads an outer CTE gets the outer one inlined inside it',
      sql: 'WITH a AS (SELECT x FROM db.t) SELECT y FROM (WITH b AS (SELECT x AS y FROM a) SELECT y FROM b) AS s',
      expected: 'SELECT y FROM (SELECT y FROM (SELECT x AS y FROM (SELECT x FROM db.t) AS `a`) AS `b`) AS s',
    },
    {
      name: 'text inside a CTE that looks like SQL stays text',
      sql: "WITH a AS (SELECT '(x) AS (' AS s, 'WITH b AS (SELECT 1)' AS w) SELECT s, w FROM a",
      expected: "SELECT s, w FROM (SELECT '(x) AS (' AS s, 'WITH b AS (SELECT 1)' AS w) AS `a`",
    },
    {
      name: 'a quoted CTE name is quoted as the alias',
      sql: 'WITH `my cte` AS (SELECT 1 AS x) SELECT x FROM `my cte`',
      expected: 'SELECT x FROM (SELECT 1 AS x) AS `my cte`',
    },
  ];
  for (const { name, sql, expected } of cases) {
    it(name, async () => {
      const result = await inline(sql);
      expect(result).toEqual({ inlined: true, statement: expected });
      // what is sent parses and passes the guard by itself
      expect((await guardClickhouseSql(result.statement)).allowed).toBe(true);
    });
  }

  it('leaves a statement without CTEs untouched', async () => {
    const sql = "SELECT x FROM db.t WHERE name = 'WITH a AS (SELECT 1)'";
    expect(await inline(sql)).toEqual({ inlined: false, statement: sql });
  });

  it('sends a recursive CTE as written, with the reason', async () => {
    const sql = 'WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r';
    expect(await inline(sql)).toEqual({ inlined: false, statement: sql, reason: 'a recursive CTE cannot be written as a derived table' });
  });

  it('sends a CTE with a column list as written', async () => {
    const sql = 'WITH a (y) AS (SELECT x FROM db.t) SELECT y FROM a';
    const result = await inline(sql);
    expect(result.inlined).toBe(false);
    expect(result.statement).toBe(sql);
  });
});

describe('which ClickHouse servers get CTEs inlined', () => {
  it.each([
    ['18.16.1', true],
    ['20.10.3.30', true],
    ['20.11.2.1', false],
    ['24.3.2.23', false],
    ['not a version', false],
  ])('version %s: older than 20.11 is %s', (version, older) => {
    expect(clickhouseOlderThan(version, [20, 11])).toBe(older);
  });
});
