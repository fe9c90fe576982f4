import { describe, expect, it } from 'vitest';
import { extractFixedSql } from '../../../src/discovery/sql/sql-fixer.js';
import { createOfflineAnalyst } from '../../../src/llm/offline-analyst/index.js';
import { sqlFixRequest } from './prompts.js';

const brain = createOfflineAnalyst();
const columns = { 'shop.sessions': ['session_id BIGINT', 'device_type VARCHAR', 'reached_checkout BOOLEAN'] };

describe('when a query failed on a misspelt column', () => {
  it('replaces it with the closest listed column and replies with a sql block', async () => {
    const reply = await brain(
      sqlFixRequest(
        'SELECT devce_type, COUNT(*) AS sessions FROM shop.sessions GROUP BY devce_type',
        'Binder Error: Referenced column "devce_type" not found in FROM clause!',
        columns,
      ),
    );
    expect(extractFixedSql(reply)).toBe('SELECT device_type, COUNT(*) AS sessions FROM shop.sessions GROUP BY device_type');
  });

  it('understands the PostgreSQL wording too', async () => {
    const reply = await brain(
      sqlFixRequest('SELECT t.reached_chekout FROM shop.sessions t', 'column t.reached_chekout does not exist', columns),
    );
    expect(extractFixedSql(reply)).toBe('SELECT t.reached_checkout FROM shop.sessions t');
  });

  it.each([
    ['MySQL/MariaDB', 'mysql', "Unknown column 't.reached_chekout' in 'field list'"],
    ['ClickHouse 18.16', 'clickhouse', "Missing columns: 'reached_chekout' while processing query"],
    ['current ClickHouse', 'clickhouse', 'Unknown expression identifier `reached_chekout` in scope SELECT'],
    ['ClickHouse identifiers', 'clickhouse', 'Unknown identifier: t.reached_chekout, context: …'],
  ] as const)('understands the %s wording too', async (_engine, dialect, error) => {
    const reply = await brain(sqlFixRequest('SELECT t.reached_chekout FROM shop.sessions t', error, columns, dialect));
    expect(extractFixedSql(reply)).toBe('SELECT t.reached_checkout FROM shop.sessions t');
  });
});

describe('when the error is not a column name it can fix', () => {
  it.each([
    ['a syntax error', 'Parser Error: syntax error at or near "FORM"'],
    ['an unknown column with no close match', 'Referenced column "revenue_per_visitor" not found'],
  ])('returns the query unchanged (%s), so the engine stops fixing', async (_case, error) => {
    const sql = 'SELECT revenue_per_visitor FORM shop.sessions';
    expect(extractFixedSql(await brain(sqlFixRequest(sql, error, columns)))).toBe(sql);
  });
});
