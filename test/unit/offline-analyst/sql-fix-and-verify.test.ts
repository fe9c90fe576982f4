import { describe, expect, it } from 'vitest';
import { extractFixedSql } from '../../../src/discovery/sql/sql-fixer.js';
import { parseAction, VERIFIER_ACTIONS } from '../../../src/discovery/parsing/action-parser.js';
import { createOfflineAnalyst } from '../../../src/llm/offline-analyst/index.js';
import { sqlFixRequest, verificationRequest } from './prompts.js';

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

describe('when verifying a finding that names its segment', () => {
  const source = 'SELECT device_type, COUNT(*) AS sessions FROM shop.sessions GROUP BY 1';
  const sourceQueries = `Step 4 — conversion: sessions by device (3 rows):\n\`\`\`sql\n${source}\n\`\`\``;

  it('wraps the cited query and sums the count column over that segment', async () => {
    const finding = JSON.stringify(
      {
        name: 'mobile: checkout abandonment',
        affected_count: 10_520,
        source_steps: [4],
        metrics: { segment_column: 'device_type', segment_value: 'mobile', count_column: 'reached_checkout_sessions', source_step: 4 },
      },
      null,
      2,
    );
    const parsed = parseAction(await brain(verificationRequest(finding, sourceQueries)), VERIFIER_ACTIONS);
    expect(parsed.ok && parsed.action.type === 'query' ? parsed.action.query : '').toBe(
      `SELECT SUM(reached_checkout_sessions) AS count\nFROM (\n${source}\n) finding_rows\nWHERE device_type = 'mobile'`,
    );
  });

  it('filters dates and value lists for trends and buckets', async () => {
    const finding = JSON.stringify({
      name: 'trend',
      metrics: {
        segment_column: 'month',
        segment_values: '2024-10-01|2024-11-01',
        segment_kind: 'date',
        count_column: 'sessions',
        source_step: 4,
      },
    });
    const parsed = parseAction(await brain(verificationRequest(finding, sourceQueries)), VERIFIER_ACTIONS);
    expect(parsed.ok && parsed.action.type === 'query' ? parsed.action.query : '').toContain(
      "WHERE CAST(\"month\" AS DATE) IN (DATE '2024-10-01', DATE '2024-11-01')",
    );
  });

  it('counts the cited rows when the finding does not say which segment', async () => {
    const parsed = parseAction(
      await brain(verificationRequest(JSON.stringify({ name: 'x', metrics: {} }), sourceQueries)),
      VERIFIER_ACTIONS,
    );
    expect(parsed.ok && parsed.action.type === 'query' ? parsed.action.query : '').toBe(
      `SELECT COUNT(*) AS count FROM (\n${source}\n) finding_rows`,
    );
  });
});
