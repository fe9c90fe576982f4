import { describe, expect, it } from 'vitest';
import { compactResult } from '../../../src/compaction/compact-result.js';
import {
  DIGEST_ONE_LINER_MAX_CHARS,
  RENDERED_SQL_MAX_CHARS,
  digestOneLiner,
  estimateRenderedTokens,
  renderQueryResults,
  renderStepDigest,
} from '../../../src/compaction/render.js';
import { estimateTokens } from '../../../src/llm/tokens.js';
import { lookupStep, queryStep } from './steps.js';
import { sessionsResult } from './fixtures.js';

describe('renderStepDigest', () => {
  it('renders step, purpose, executed SQL, row count and the digest with rows column-wise', () => {
    const step = queryStep(7, { query: 'SELECT x FROM t', executed_query: 'SELECT x FROM t LIMIT 10', rows: [{ x: 1 }, { x: 2 }] });
    const rendered = JSON.parse(renderStepDigest(step)) as Record<string, unknown>;
    expect(rendered).toMatchObject({
      step: 7,
      purpose: 'purpose 7',
      sql: 'SELECT x FROM t LIMIT 10',
      row_count: 2,
      row_columns: ['x'],
      all_rows: [[1], [2]],
    });
    expect(rendered.head_rows).toBeUndefined();
  });

  it('prefers the digest stored on the step over its rows', () => {
    const compact = compactResult([{ name: 'y' }], [{ y: 'stored' }]);
    const step = queryStep(1, { rows: [{ x: 1 }], compact });
    expect(renderStepDigest(step)).toContain('"row_columns":["y"]');
  });

  it('cuts very long SQL with a marker', () => {
    const step = queryStep(1, { executed_query: `SELECT ${'a,'.repeat(5000)} 1` });
    const { sql } = JSON.parse(renderStepDigest(step)) as { sql: string };
    expect(sql.startsWith('SELECT a,a,')).toBe(true);
    expect(sql).toMatch(/…\(\+\d+ chars\)$/);
    expect(sql.length).toBeLessThan(RENDERED_SQL_MAX_CHARS + 20);
  });

  it('includes the error of a failed step', () => {
    const step = queryStep(2, { error: 'Binder Error: column "x" not found' });
    expect(JSON.parse(renderStepDigest(step))).toMatchObject({ error: 'Binder Error: column "x" not found' });
  });
});

describe('renderQueryResults', () => {
  it('is a JSON array of the rendered steps in the order given', () => {
    const steps = [queryStep(2, { rows: [{ a: 1 }] }), queryStep(1, { rows: [{ a: 2 }] })];
    const parsed = JSON.parse(renderQueryResults(steps)) as Array<{ step: number }>;
    expect(parsed.map((entry) => entry.step)).toEqual([2, 1]);
    expect(renderQueryResults([])).toBe('[]');
  });

  it('estimates tokens from exactly the rendered string', () => {
    const { columns, rows } = sessionsResult(300);
    const steps = [
      queryStep(1, { columns: columns.map((c) => ({ name: c.name, type: c.type ?? '' })), rows }),
      queryStep(2, { rows: [{ a: 1 }] }),
    ];
    expect(estimateRenderedTokens(steps, 'anthropic')).toBe(estimateTokens(renderQueryResults(steps), 'anthropic'));
  });
});

describe('digestOneLiner', () => {
  it('summarises row count and the gist of each column within the length cap', () => {
    const rows = Array.from({ length: 2000 }, (_, index) => ({ device: index % 100 < 61 ? 'mobile' : 'desktop', orders: index % 7 }));
    const line = digestOneLiner(queryStep(12, { rows }));
    expect(line).toBe('step 12 · 2,000 rows · cols: device(top mobile 61%), orders(median 3)');
  });

  it('stops listing columns before the cap and marks the rest', () => {
    const row = Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`a_rather_long_column_${index}`, index]));
    const line = digestOneLiner(queryStep(3, { rows: [row] }));
    expect(line.length).toBeLessThanOrEqual(DIGEST_ONE_LINER_MAX_CHARS);
    expect(line.endsWith(' …')).toBe(true);
  });

  it('describes failures and non-query steps', () => {
    expect(digestOneLiner(queryStep(4, { error: 'Catalog Error:\n  no table' }))).toBe('step 4 · error: Catalog Error: no table');
    expect(digestOneLiner(lookupStep(5, ['orders', 'customers']))).toBe('step 5 · lookup_schema orders, customers');
  });
});
