import { describe, expect, it } from 'vitest';
import { randomMacrosSql, sqlList, sqlLiteral, uniformPickSql, weightedPickSql } from '../../../src/demo/random-sql.js';

describe('when a JS value becomes a SQL literal', () => {
  it('quotes strings and doubles embedded quotes', () => {
    expect(sqlLiteral("Parcel & Pine's")).toBe("'Parcel & Pine''s'");
  });
  it('renders numbers, booleans and null as bare keywords', () => {
    expect([sqlLiteral(3.5), sqlLiteral(true), sqlLiteral(false), sqlLiteral(null)]).toEqual(['3.5', 'TRUE', 'FALSE', 'NULL']);
  });
  it('refuses non-finite numbers', () => {
    expect(() => sqlLiteral(Number.NaN)).toThrow(RangeError);
  });
  it('renders a list literal', () => {
    expect(sqlList(['a', 1, null])).toBe("['a', 1, NULL]");
  });
});

describe('when a weighted pick is written as SQL', () => {
  it('places cumulative, normalised thresholds in order and lets the last choice take the rest', () => {
    expect(
      weightedPickSql('u', [
        ['a', 2],
        ['b', 1],
        ['c', 1],
      ]),
    ).toBe("CASE WHEN u < 0.500000 THEN 'a' WHEN u < 0.750000 THEN 'b' ELSE 'c' END");
  });
  it('returns the bare literal for a single choice', () => {
    expect(weightedPickSql('u', [[7, 1]])).toBe('7');
  });
  it('refuses no choices, negative weights and an all-zero total', () => {
    expect(() => weightedPickSql('u', [])).toThrow(RangeError);
    expect(() =>
      weightedPickSql('u', [
        ['a', -1],
        ['b', 2],
      ]),
    ).toThrow(RangeError);
    expect(() => weightedPickSql('u', [['a', 0]])).toThrow(RangeError);
  });
});

describe('when a uniform pick is written as SQL', () => {
  it('indexes a list literal 1-based with the draw scaled to its length', () => {
    expect(uniformPickSql('u', ['x', 'y', 'z'])).toBe("list_element(['x', 'y', 'z'], 1 + floor((u) * 3)::INTEGER)");
  });
});

describe('when the seeded macros are created', () => {
  it('bakes the seed into both macros as temporary macros', () => {
    const sql = randomMacrosSql(1234);
    expect(sql.match(/CREATE OR REPLACE TEMP MACRO/g)).toHaveLength(2);
    expect(sql.match(/1234::BIGINT/g)).toHaveLength(2);
  });
  it('refuses a seed that is not a safe integer', () => {
    expect(() => randomMacrosSql(1.5)).toThrow(RangeError);
  });
});
