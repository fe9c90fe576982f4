import { describe, expect, it } from 'vitest';
import { SqlSyntaxError, UnsafeSqlError } from '../../../src/errors/index.js';
import { assertSafeSql, guardSql, type SqlDialect } from '../../../src/warehouse/index.js';
import { ACCEPT_CORPUS, ATTACK_CORPUS, casesFor } from './sql-corpus.js';

const DIALECTS: SqlDialect[] = ['duckdb', 'postgres'];

describe.each(DIALECTS)('the %s SQL guard', (dialect) => {
  describe('when given an attack', () => {
    it.each(casesFor(ATTACK_CORPUS, dialect).map((entry) => [entry.name, entry.sql] as const))('refuses %s', async (_name, sql) => {
      const verdict = await guardSql(sql.replaceAll('{{dir}}', '/tmp/sandbox'), dialect);
      expect(verdict.allowed).toBe(false);
      if (!verdict.allowed) expect(verdict.reason.length).toBeGreaterThan(10);
    });
  });

  describe('when given an analytical query', () => {
    it.each(casesFor(ACCEPT_CORPUS, dialect).map((entry) => [entry.name, entry.sql] as const))('allows %s', async (_name, sql) => {
      const verdict = await guardSql(sql, dialect);
      expect(verdict).toMatchObject({ allowed: true, dialect });
    });
  });

  describe('when a statement is refused', () => {
    it('throws UnsafeSqlError with code unsafe_sql and a reason naming the cause', async () => {
      const error = await assertSafeSql('SELECT 1; SELECT 2', dialect).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UnsafeSqlError);
      expect(error).toMatchObject({
        code: 'unsafe_sql',
        message: 'refused: only a single SELECT statement is allowed (found 2 statements)',
      });
    });
  });

  describe('when a statement does not parse', () => {
    it('throws SqlSyntaxError, not UnsafeSqlError: a typo is reported as one, and still nothing runs', async () => {
      const error = await assertSafeSql('SELEC 1', dialect).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SqlSyntaxError);
      expect(error).not.toBeInstanceOf(UnsafeSqlError);
      expect(error).toMatchObject({ code: 'sql_syntax' });
      expect((error as Error).message).toMatch(
        /^syntax error: the SQL does not parse \(.*syntax error at or near "SELEC".*\); nothing was executed$/,
      );
    });
  });

  describe('when a statement is allowed', () => {
    it('reports the relations it reads and the CTEs it defines', async () => {
      const verdict = await assertSafeSql(
        'WITH recent AS (SELECT * FROM main_orders) SELECT * FROM recent r JOIN customers c ON c.id = r.customer_id',
        dialect,
      );
      expect(verdict.cteNames).toEqual(['recent']);
      expect(verdict.relations.map((relation) => relation.name).sort()).toEqual(['customers', 'main_orders', 'recent']);
    });
  });
});

describe('the reasons the guard gives', () => {
  it.each([
    ['duckdb', "SELECT * FROM read_csv('x.csv')", 'function read_csv reads files'],
    ['duckdb', "SELECT * FROM 'data.csv'", 'table name "data.csv" looks like a file or URL, which DuckDB would read'],
    ['duckdb', 'SELECT * FROM duckdb_tables()', 'function duckdb_tables reads the server environment or settings'],
    ['postgres', "SELECT pg_read_file('x')", 'function pg_read_file reads files'],
    [
      'postgres',
      'WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d',
      'a WITH clause may only hold SELECT queries (found DELETE in CTE d)',
    ],
    ['postgres', 'SELECT * INTO x FROM t', 'SELECT … INTO creates a table'],
    ['postgres', 'SELECT * FROM t FOR UPDATE', 'FOR UPDATE/SHARE takes row locks'],
    ['postgres', 'DELETE FROM t', 'only a single SELECT statement is allowed (found DELETE)'],
    ['postgres', 'SELECT * FROM pg_get_keywords()', 'table function pg_get_keywords is not on the allow-list'],
  ] as const)('for %s %s: %s', async (dialect, sql, reason) => {
    const verdict = await guardSql(sql, dialect);
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) expect(verdict.reason.startsWith(reason)).toBe(true);
  });

  it('keeps only the statement text for PostgreSQL (no trailing semicolon or comment)', async () => {
    const verdict = await assertSafeSql('  SELECT 1 AS x ;  -- trailing', 'postgres');
    expect(verdict.statement).toBe('SELECT 1 AS x');
  });
});
