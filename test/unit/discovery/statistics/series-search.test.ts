/**
 * The split and window searches rank candidates by their statistic and work out one p-value: they must
 * find, to the last bit, what testing every candidate in full finds. The oracle below is that full
 * search, written the plain way (every candidate's periods copied, every p-value computed).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type SeriesPoint,
  type WindowFinding,
  bestShift,
  bestWindow,
  windowContrast,
} from '../../../../src/discovery/statistics/series.js';

function fullSearch(candidates: Array<{ first: number; last: number; inside: number[]; outside: number[] }>) {
  let best: WindowFinding | undefined;
  for (const candidate of candidates) {
    const contrast = windowContrast(candidate.inside, candidate.outside);
    if (!contrast) continue;
    if (!best || Math.abs(contrast.test.statistic) > Math.abs(best.test.statistic))
      best = { first: candidate.first, last: candidate.last, inside: contrast.inside, outside: contrast.outside, test: contrast.test };
  }
  return best && { ...best, test: { ...best.test, p_value: Math.min(1, best.test.p_value * Math.max(1, candidates.length)) } };
}

function shiftOracle(values: readonly number[], minSide: number) {
  const candidates = [];
  for (let split = minSide; split <= values.length - minSide; split++)
    candidates.push({ first: split, last: values.length - 1, inside: values.slice(split), outside: values.slice(0, split) });
  return fullSearch(candidates);
}

function windowOracle(values: readonly number[], maxLength: number) {
  const candidates = [];
  for (let length = 1; length <= maxLength; length++)
    for (let first = 0; first + length <= values.length; first++) {
      const outside = [...values.slice(0, first), ...values.slice(first + length)];
      if (outside.length < 3) continue;
      candidates.push({ first, last: first + length - 1, inside: values.slice(first, first + length), outside });
    }
  return fullSearch(candidates);
}

const points = (values: readonly number[]): SeriesPoint[] => values.map((value, x) => ({ x, label: String(x), value, rows: 10 }));

// integers and repeats too: ties, flat sides (no spread) and equal means are the edge cases
const series = fc.array(fc.oneof(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.integer({ min: 0, max: 3 })), {
  minLength: 0,
  maxLength: 40,
});

describe('the best split and the best window of a series', () => {
  it('are what testing every candidate in full finds, to the last bit', () => {
    fc.assert(
      fc.property(series, fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 6 }), (values, maxLength, minSide) => {
        expect(bestWindow(points(values), maxLength)).toEqual(windowOracle(values, maxLength));
        expect(bestShift(points(values), minSide)).toEqual(shiftOracle(values, minSide));
      }),
      { numRuns: 500 },
    );
  });

  it('finds a planted run of high periods', () => {
    const values = Array.from({ length: 24 }, (_, index) => (index >= 10 && index < 13 ? 50 : 10 + (index % 3)));
    const found = bestWindow(points(values), 6);
    expect([found?.first, found?.last]).toEqual([10, 12]);
    expect(found?.test.p_value).toBeLessThan(0.001);
  });
});
