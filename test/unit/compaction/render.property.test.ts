import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactResult } from '../../../src/compaction/compact-result.js';
import { COMPLETE_DIGEST_BUDGET_BYTES, DIGEST_BUDGET_BYTES, renderStepDigest } from '../../../src/compaction/render.js';
import type { Cell, Row } from '../../../src/domain/index.js';
import { floatCell } from '../../../src/warehouse/cells.js';
import { queryStep } from './steps.js';

const text = fc.string({ unit: 'binary', maxLength: 120 });
const cell: fc.Arbitrary<Cell> = fc.oneof(
  fc.constant(null),
  // As a warehouse hands floats over: NaN and ±Infinity arrive as their names (a step cannot store them as numbers).
  fc.double().map(floatCell),
  fc.integer(),
  fc.boolean(),
  text,
  fc.constantFrom('mobile', 'desktop', 'tablet', 'US', 'DE'),
  fc.date({ min: new Date('1990-01-01'), max: new Date('2040-01-01'), noInvalidDate: true }).map((date) => date.toISOString()),
);

/** Any width (0–70 columns, some past the digest's column cap), 0–120 rows, any names and cells. */
const shape = fc
  .record({
    names: fc.uniqueArray(fc.string({ unit: 'binary', minLength: 1, maxLength: 90 }), { maxLength: 70 }),
    types: fc.array(fc.constantFrom(undefined, 'BIGINT', 'VARCHAR', 'DOUBLE', 'TIMESTAMP', 'BOOLEAN', 'DECIMAL(10,2)'), { maxLength: 70 }),
    rowCount: fc.integer({ min: 0, max: 120 }),
    seed: fc.array(cell, { minLength: 1, maxLength: 40 }),
    purpose: text,
    sql: fc.string({ maxLength: 3000 }),
  })
  .map(({ names, types, rowCount, seed, purpose, sql }) => {
    const columns = names.map((name, index) => ({ name, ...(types[index] ? { type: types[index] } : {}) }));
    const rows = Array.from(
      { length: rowCount },
      (_, row): Row => Object.fromEntries(names.map((name, column) => [name, seed[(row * 7 + column * 3) % seed.length] ?? null])),
    );
    return { columns, rows, purpose, sql };
  });

/** Bytes the budget covers: the rendered step without the characters of its own texts (purpose, SQL, error). */
function budgetedBytes(rendered: string): number {
  const parsed = JSON.parse(rendered) as { purpose?: string; sql?: string; error?: string };
  const texts = [parsed.purpose, parsed.sql, parsed.error].filter((value): value is string => value !== undefined);
  return Buffer.byteLength(rendered) - texts.reduce((sum, value) => sum + Buffer.byteLength(JSON.stringify(value)) - 2, 0);
}

describe('rendered digest properties', () => {
  it('never spends more than its budget, whatever the shape, and stays one line of JSON', () => {
    fc.assert(
      fc.property(shape, ({ columns, rows, purpose, sql }) => {
        const compact = compactResult(columns, rows);
        const rendered = renderStepDigest(queryStep(1, { query_purpose: purpose, executed_query: sql, row_count: rows.length }), compact);
        expect(rendered).not.toContain('\n');
        const budget = compact.all_rows === undefined ? DIGEST_BUDGET_BYTES : COMPLETE_DIGEST_BUDGET_BYTES;
        expect(budgetedBytes(rendered)).toBeLessThanOrEqual(budget);
        const parsed = JSON.parse(rendered) as { columns?: string[]; column_count?: number; all_rows?: unknown[] };
        // A column not shown is always announced by the total.
        if ((parsed.columns?.length ?? 0) < columns.length && columns.length > 0) expect(parsed.column_count).toBe(columns.length);
        // Rows shown as all_rows are really all of them.
        if (parsed.all_rows !== undefined) expect(parsed.all_rows).toHaveLength(rows.length);
      }),
      { numRuns: 150 },
    );
  });

  it('is deterministic: the same step renders to the same bytes', () => {
    fc.assert(
      fc.property(shape, ({ columns, rows }) => {
        const first = renderStepDigest(queryStep(1, { rows }), compactResult(columns, rows));
        const second = renderStepDigest(
          queryStep(1, { rows: structuredClone(rows) }),
          compactResult(structuredClone(columns), structuredClone(rows)),
        );
        expect(second).toBe(first);
      }),
      { numRuns: 60 },
    );
  });
});
