/**
 * Golden digests: byte-identical output for fixed inputs, checked in under test/golden/compaction/.
 * After an intended change to the digest, regenerate with `UPDATE_GOLDEN=1 npx vitest run test/unit/compaction/golden.test.ts`
 * and review the diff by hand before committing it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compactResult, type ResultColumn } from '../../../src/compaction/compact-result.js';
import { renderQueryResults } from '../../../src/compaction/render.js';
import { explorationStepSchema, type Row } from '../../../src/domain/index.js';
import { sessionsResult, wideResult } from './fixtures.js';

const goldenDirectory = fileURLToPath(new URL('../../golden/compaction/', import.meta.url));

function readInput(name: string): { columns: ResultColumn[]; rows: Row[] } {
  return JSON.parse(readFileSync(`${goldenDirectory}${name}.input.json`, 'utf8')) as { columns: ResultColumn[]; rows: Row[] };
}

function expectGolden(file: string, actual: string): void {
  const path = `${goldenDirectory}${file}`;
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(path, actual);
  expect(actual).toBe(readFileSync(path, 'utf8'));
}

const pretty = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

describe('golden digests', () => {
  it('orders-small: typed columns, inlined rows', () => {
    const { columns, rows } = readInput('orders-small');
    expectGolden('orders-small.digest.json', pretty(compactResult(columns, rows)));
  });

  it('numbers-edge: huge, negative and irrational numbers, ties in top values', () => {
    const { columns, rows } = readInput('numbers-edge');
    expectGolden('numbers-edge.digest.json', pretty(compactResult(columns, rows)));
  });

  it('sessions-2000: a 2,000-row mixed result', () => {
    const { columns, rows } = sessionsResult();
    expectGolden('sessions-2000.digest.json', pretty(compactResult(columns, rows)));
  });

  it('wide-250: a 250-column result', () => {
    const { columns, rows } = wideResult();
    expectGolden('wide-250.digest.json', pretty(compactResult(columns, rows)));
  });

  it('sessions-2000 rendered: a long result as the prompt shows it, within its byte budget', () => {
    const { columns, rows } = sessionsResult();
    const step = explorationStepSchema.parse({
      run_id: 'r1',
      step: 7,
      action: 'query',
      timestamp: '2024-03-04T00:00:00Z',
      query_purpose: 'Sessions in March with their orders and revenue',
      query: 'SELECT * FROM sessions',
      row_count: rows.length,
      compact: compactResult(columns, rows),
    });
    expectGolden('sessions-2000.rendered.txt', `${renderQueryResults([step])}\n`);
  });

  it('query-results block: the rendered prompt shape for a query, a failed query and a lookup', () => {
    const { columns, rows } = readInput('orders-small');
    const base = { run_id: 'r1', timestamp: '2024-03-04T00:00:00Z', thinking: 'look at orders' };
    const steps = [
      explorationStepSchema.parse({
        ...base,
        step: 3,
        action: 'query',
        query_purpose: 'Orders by country',
        query: 'SELECT * FROM orders',
        executed_query: 'SELECT * FROM orders',
        row_count: rows.length,
        columns: columns.map((column) => ({ name: column.name, type: column.type ?? 'UNKNOWN' })),
        rows,
      }),
      explorationStepSchema.parse({
        ...base,
        step: 4,
        action: 'query',
        query_purpose: 'Refund rate',
        query: 'SELECT refunds FROM orderz',
        error: 'Catalog Error: Table with name orderz does not exist!',
      }),
    ];
    expectGolden('query-results.rendered.txt', `${renderQueryResults(steps)}\n`);
  });
});
