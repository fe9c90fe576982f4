import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Row } from '../../../src/domain/index.js';
import { capRowsByBytes } from '../../../src/warehouse/index.js';

const rowArbitrary = fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)), {
  maxKeys: 4,
});

describe('when rows are capped by bytes', () => {
  it('keeps every row when they fit, and says so', () => {
    const rows: Row[] = [{ a: 1 }, { a: 2 }];
    expect(capRowsByBytes(rows, 1_000)).toEqual({ rows, truncated: false, bytes: Buffer.byteLength(JSON.stringify(rows)) });
  });

  it('drops the rows that do not fit and flags truncation', () => {
    const rows: Row[] = [{ text: 'x'.repeat(40) }, { text: 'y'.repeat(40) }, { text: 'z'.repeat(40) }];
    const capped = capRowsByBytes(rows, 120);
    expect(capped.rows).toEqual(rows.slice(0, 2));
    expect(capped.truncated).toBe(true);
  });

  it('counts UTF-8 bytes, not characters', () => {
    const rows: Row[] = [{ t: 'é'.repeat(30) }];
    expect(capRowsByBytes(rows, 50).rows).toEqual([]);
  });

  it('always returns a prefix whose JSON fits the cap (property)', () => {
    fc.assert(
      fc.property(fc.array(rowArbitrary, { maxLength: 30 }), fc.integer({ min: 2, max: 2_000 }), (rows, maxBytes) => {
        const capped = capRowsByBytes(rows, maxBytes);
        expect(capped.rows).toEqual(rows.slice(0, capped.rows.length));
        expect(Buffer.byteLength(JSON.stringify(capped.rows))).toBe(capped.bytes);
        expect(capped.bytes).toBeLessThanOrEqual(maxBytes);
        expect(capped.truncated).toBe(capped.rows.length < rows.length);
      }),
    );
  });
});
