import { describe, expect, it } from 'vitest';
import { DIALECT_HINTS } from '../../../src/discovery/sql/dialect-hints.js';
import { renderSqlFixPrompt } from '../../../src/discovery/sql/sql-fix-prompt.js';
import { SQL_DIALECTS, type SqlDialect } from '../../../src/warehouse/dialect.js';

function promptFor(dialect: SqlDialect): string {
  return renderSqlFixPrompt({ dialect, sql: 'SELECT 1', error: 'syntax error', tables: [], previous: [] });
}

/** The section the hints render into, up to the next heading. */
function hintsSection(prompt: string): string {
  const start = prompt.indexOf('## How this dialect writes SQL');
  expect(start).toBeGreaterThanOrEqual(0);
  const rest = prompt.slice(start);
  return rest.slice(0, rest.indexOf('\n## ', 3));
}

describe('the sql_fix prompt advises in the dialect of the warehouse', () => {
  it.each(SQL_DIALECTS)('lists every %s hint, and only those', (dialect) => {
    const section = hintsSection(promptFor(dialect));
    for (const hint of DIALECT_HINTS[dialect]) expect(section).toContain(`- ${hint}`);
    for (const other of SQL_DIALECTS.filter((name) => name !== dialect))
      for (const hint of DIALECT_HINTS[other].filter((text) => !DIALECT_HINTS[dialect].includes(text))) expect(section).not.toContain(hint);
  });

  it('tells MySQL/MariaDB fixes to quote with backticks and truncate months with DATE_FORMAT, not date_trunc', () => {
    const section = hintsSection(promptFor('mysql'));
    expect(section).toMatch(/backticks/);
    expect(section).toContain("DATE_FORMAT(ts, '%Y-%m-01')");
    expect(section).toMatch(/No date_trunc/);
    expect(section).not.toMatch(/date_trunc\('month'/);
  });

  it('tells ClickHouse fixes its own date functions and what old servers lack', () => {
    const section = hintsSection(promptFor('clickhouse'));
    expect(section).toContain('toStartOfMonth(ts)');
    expect(section).toMatch(/no window functions \(OVER\), no GROUP BY 1 and one JOIN per SELECT/);
    expect(section).toMatch(/WITH name AS \(subquery\) is fine/);
    expect(section).not.toContain('DATE_FORMAT');
  });

  it('keeps DuckDB advice for DuckDB', () => {
    const section = hintsSection(promptFor('duckdb'));
    expect(section).toContain("date_trunc('month', ts)");
    expect(section).not.toMatch(/backticks/);
  });
});
