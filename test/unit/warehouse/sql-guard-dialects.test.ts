import { describe, expect, it } from 'vitest';
import { assertSafeSql, guardSql } from '../../../src/warehouse/index.js';
import { sqlSyntaxFor, CALENDAR_PARTS, TIME_GRAINS } from '../../../src/warehouse/sql-syntax/index.js';
import { dialectAccepts, dialectAttacks, SQLPARSER_DIALECTS } from './sql-corpus-dialects.js';

describe.each(SQLPARSER_DIALECTS)('the %s SQL guard', (dialect) => {
  describe('when given an attack', () => {
    it.each(dialectAttacks(dialect).map((entry) => [entry.name, entry.sql] as const))('refuses %s', async (_name, sql) => {
      const verdict = await guardSql(sql.replaceAll('{{dir}}', '/tmp/sandbox'), dialect);
      expect(verdict.allowed).toBe(false);
      if (!verdict.allowed) expect(verdict.reason.length).toBeGreaterThan(10);
    });
  });

  describe('when given an analytical query', () => {
    it.each(dialectAccepts(dialect).map((entry) => [entry.name, entry.sql] as const))('allows %s', async (_name, sql) => {
      const verdict = await guardSql(sql, dialect);
      expect(verdict).toMatchObject({ allowed: true, dialect });
    });
  });

  describe('when the engine writes its own SQL with SqlSyntax', () => {
    const syntax = sqlSyntaxFor(dialect);
    const ref = { schema: 'shop', name: 'order items' };
    const column = syntax.identifier('placed at');
    const measure = syntax.identifier('amount');
    const expressions: Array<[string, string]> = [
      ['literals', `${syntax.string("it's \\ fine")}, ${syntax.number(2.5)}, ${syntax.boolean(true)}, ${syntax.literal('x')}`],
      ['casts', `${syntax.toDouble(measure)}, ${syntax.toText(measure)}, ${syntax.toTimestamp(column)}`],
      ['timestamp literal', syntax.timestamp('2023-07-01T12:00:00')],
      ...TIME_GRAINS.map((grain): [string, string] => [`truncate to ${grain}`, syntax.truncate(column, grain)]),
      ...CALENDAR_PARTS.map((part): [string, string] => [`calendar part ${part}`, syntax.calendarPart(column, part)]),
      ['year and epoch', `${syntax.year(column)}, ${syntax.epochSeconds(column)}`],
      [
        'aggregates',
        `${syntax.variance(measure)}, ${syntax.median(measure)}, ${syntax.quantile(measure, 0.9)}, ${syntax.approxDistinct(measure)}`,
      ],
      ['correlation', syntax.correlation(measure, syntax.identifier('quantity'))],
      [
        'word match and count',
        `${syntax.containsWord(syntax.identifier('note'), 'late (again)')}, ${syntax.wordCount(syntax.identifier('note'))}`,
      ],
      ['ordered concatenation', syntax.orderedConcat(syntax.toText(syntax.identifier('note')), "|'")],
      ['slope', syntax.slope(measure, syntax.identifier('quantity'))],
      ['days between and month text', `${syntax.daysBetween(column, syntax.identifier('shipped at'))}, ${syntax.monthText(column)}`],
    ];
    it.each(expressions)('passes the guard: %s', async (_name, expression) => {
      const verdict = await guardSql(`SELECT ${expression} AS v FROM ${syntax.table(ref)}`, dialect);
      expect(verdict).toMatchObject({ allowed: true });
    });

    it('passes the guard with a sampled table', async () => {
      const verdict = await guardSql(`SELECT count(*) AS n FROM ${syntax.sampledTable(ref, 1_000_000, 10_000)} AS s`, dialect);
      expect(verdict).toMatchObject({ allowed: true });
    });
  });

  describe('when a statement is allowed', () => {
    it('reports the relations it reads, where their names are, and the CTEs it defines', async () => {
      const sql = 'WITH recent AS (SELECT * FROM sales.main_orders) SELECT * FROM recent r JOIN customers c ON c.id = r.customer_id';
      const verdict = await assertSafeSql(sql, dialect);
      expect(verdict.cteNames).toEqual(['recent']);
      const relations = verdict.relations.map((relation) => ({
        ...relation,
        text: sql.slice(relation.location, (relation as { end?: number }).end),
      }));
      expect(relations.map((relation) => relation.text).sort()).toEqual(['customers', 'recent', 'sales.main_orders']);
      expect(relations.find((relation) => relation.name === 'main_orders')).toMatchObject({ schema: 'sales' });
      expect(relations.find((relation) => relation.name === 'customers')).toMatchObject({ alias: 'c' });
    });

    it('runs the statement without its comments or trailing semicolons', async () => {
      const verdict = await assertSafeSql('SELECT 1 AS x /* one */ ; -- done', dialect);
      expect(verdict.statement).toBe('SELECT 1 AS x');
    });
  });
});

describe('the reasons the sqlparser-based guards give', () => {
  it.each([
    ['mysql', "SELECT LOAD_FILE('/etc/passwd')", 'function LOAD_FILE is not on the mysql allow-list'],
    ['mysql', 'SELECT 1 /*M! , 2 */', 'executable comments'],
    ['mysql', 'SELECT * FROM mysql.user', 'the mysql database holds server internals'],
    ['mysql', 'DELETE FROM t', 'only a single SELECT statement is allowed (found DELETE)'],
    ['clickhouse', "SELECT * FROM url('http://x', CSV, 'a String')", 'table function url is not on the clickhouse allow-list'],
    ['clickhouse', 'SELECT * FROM t FORMAT TSV', 'a FORMAT clause is not allowed'],
    ['clickhouse', 'SELECT * FROM t SETTINGS readonly = 0', 'a SETTINGS clause is not allowed'],
    ['clickhouse', 'SELECT * FROM system.users', 'the system database'],
    ['bigquery', "EXPORT DATA OPTIONS (uri = 'gs://b/x*') AS SELECT 1", 'only a single SELECT statement is allowed (found EXPORT DATA)'],
    ['bigquery', "SELECT * FROM EXTERNAL_QUERY('c', 'SELECT 1')", 'table function EXTERNAL_QUERY is not on the bigquery allow-list'],
    ['snowflake', 'COPY INTO @s FROM t', 'only a single SELECT statement is allowed (found COPY INTO)'],
    ['snowflake', 'SELECT * FROM @s', '@s names a stage'],
  ] as const)('for %s %s: %s', async (dialect, sql, reason) => {
    const verdict = await guardSql(sql, dialect);
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) expect(verdict.reason.startsWith(reason)).toBe(true);
  });

  it('checks ClickHouse aggregate combinators under their base function', async () => {
    expect(await guardSql('SELECT sumIf(x, y > 0), uniqExactIf(z, 1), avgOrNull(x) FROM t', 'clickhouse')).toMatchObject({ allowed: true });
    expect(await guardSql('SELECT sleepIf(1, 1)', 'clickhouse')).toMatchObject({ allowed: false });
  });

  it('checks BigQuery SAFE. calls under the function they guard', async () => {
    expect(await guardSql('SELECT SAFE.LOG(10) AS x, SAFE_DIVIDE(1, 0) AS y', 'bigquery')).toMatchObject({ allowed: true });
    expect(await guardSql('SELECT SAFE.SESSION_USER() AS x', 'bigquery')).toMatchObject({ allowed: false });
  });
});
