/**
 * The statistics behind the drivers of a change and record-level outliers. Reference figures were
 * computed independently in Python (math.erfc, exact Poisson sums) on the same inputs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ChangePeriod, breakDownChange } from '../../../../src/discovery/statistics/change.js';
import { farOutFences, outlierTailTest, robustZ, roundestBetween } from '../../../../src/discovery/statistics/outliers.js';
import { periodStartsBetween } from '../../../../src/discovery/statistics/periods.js';
import { logNormalUpperTail, poissonTail, shareChangeZ, twoProportionZ } from '../../../../src/discovery/statistics/tests.js';

function counted(rows: number) {
  return { rows, n: rows, sum: rows, squares: rows };
}

describe('the Poisson tail and the normal tail far out', () => {
  it('gives P(X ≥ k) for a Poisson count, from the smallest expectation to one above the count', () => {
    expect(poissonTail(3, Math.log(1)).p_value).toBeCloseTo(0.08030139707139416, 12);
    expect(poissonTail(4, Math.log(6)).p_value).toBeCloseTo(0.8487961172233521, 12);
    const tiny = poissonTail(2, Math.log(1e-6));
    expect(Math.abs(tiny.p_value - 4.999996666667917e-13) / 4.999996666667917e-13).toBeLessThan(1e-6);
    expect(tiny.statistic).toBeCloseTo(1e-6, 12);
    expect(poissonTail(0, Math.log(2)).p_value).toBe(1);
  });

  it('gives ln P(Z > z) without underflow, continuous where the asymptotic series takes over', () => {
    expect(logNormalUpperTail(3)).toBeCloseTo(-6.607726221510348, 9);
    expect(logNormalUpperTail(8)).toBeCloseTo(-35.013437159914545, 5);
    expect(logNormalUpperTail(-1)).toBeCloseTo(-0.1727537790234499, 9);
    expect(Math.abs(logNormalUpperTail(6.9999) - logNormalUpperTail(7.0001))).toBeLessThan(0.002);
    expect(Number.isFinite(logNormalUpperTail(60))).toBe(true);
  });
});

describe('the share change test', () => {
  it('reduces to the unpooled two-proportion z for counts (every value 1)', () => {
    const z = shareChangeZ({ segment: counted(30), rest: counted(70) }, { segment: counted(45), rest: counted(55) });
    expect(z?.test).toBe('share_change_z');
    expect(z?.statistic).toBeCloseTo(2.217663812863719, 9);
    // the pooled z is smaller but on the same side
    expect(Math.sign(twoProportionZ(45, 100, 30, 100)?.statistic as number)).toBe(1);
  });

  it('has no answer for a total that is not positive', () => {
    expect(shareChangeZ({ segment: counted(0), rest: counted(0) }, { segment: counted(4), rest: counted(5) })).toBeUndefined();
  });
});

describe('breaking a change down', () => {
  const period = (key: string, all: number, segment: number): ChangePeriod => ({ key, all: counted(all), segment: counted(segment) });

  it("measures a segment's part of a count's change and tests that its share moved", () => {
    const breakdown = breakDownChange(
      'count',
      { baseline: [period('2024-05-01', 100, 25)], window: [period('2024-06-01', 140, 55)], baselinePeriods: 1, windowPeriods: 1 },
      { minSupport: 10 },
    );
    expect(breakdown).toMatchObject({ change: 40, contribution: 30, baselineShare: 0.25, segmentRows: 80, rows: 240 });
    expect(breakdown?.changeTest?.test).toBe('poisson_rate');
    expect(breakdown?.shareTest?.test).toBe('share_change_z');
    expect(breakdown?.shareTest?.statistic).toBeGreaterThan(2);
  });

  it('splits the change exactly: a segment and the rest add up to the whole, for totals and for averages', () => {
    const sums = fc.record({
      rows: fc.integer({ min: 1, max: 500 }),
      n: fc.integer({ min: 1, max: 500 }),
      sum: fc.double({ min: 1, max: 1e5, noNaN: true }),
    });
    fc.assert(
      fc.property(sums, sums, sums, sums, fc.constantFrom('sum' as const, 'average' as const), (a, b, c, d, metric) => {
        const side = (s: typeof a) => ({ ...s, n: Math.min(s.n, s.rows), squares: s.sum * s.sum });
        const add = (x: ReturnType<typeof side>, y: ReturnType<typeof side>) => ({
          rows: x.rows + y.rows,
          n: x.n + y.n,
          sum: x.sum + y.sum,
          squares: x.squares + y.squares,
        });
        const windows = (first: ReturnType<typeof side>, second: ReturnType<typeof side>) => ({
          baseline: [{ key: 'a', all: add(side(a), side(b)), segment: first }],
          window: [{ key: 'b', all: add(side(c), side(d)), segment: second }],
          baselinePeriods: 1,
          windowPeriods: 1,
        });
        const segment = breakDownChange(metric, windows(side(a), side(c)), { minSupport: 10 });
        const rest = breakDownChange(metric, windows(side(b), side(d)), { minSupport: 10 });
        if (!segment || !rest) return false;
        return Math.abs(segment.contribution + rest.contribution - segment.change) <= 1e-6 * Math.max(1, Math.abs(segment.change));
      }),
    );
  });

  it('compares per-period values when the baseline has several periods', () => {
    const breakdown = breakDownChange(
      'count',
      {
        baseline: [period('2024-01-01', 100, 25), period('2024-02-01', 104, 26), period('2024-03-01', 98, 24)],
        window: [period('2024-04-01', 160, 80)],
        baselinePeriods: 3,
        windowPeriods: 1,
      },
      { minSupport: 10 },
    );
    expect(breakdown?.change).toBeCloseTo(160 - 302 / 3, 9);
    expect(breakdown?.contribution).toBeCloseTo(55, 9);
    expect(breakdown?.changeTest?.test).toBe('welch_t');
    expect(breakdown?.shareTest?.p_value).toBeLessThan(0.01);
  });
});

describe('outliers', () => {
  const positive = { q1: 100, median: 200, q3: 400, min: 5, n: 1_000 };

  it('puts the far-out fences three interquartile ranges out, on the log scale for a positive measure', () => {
    expect(farOutFences(positive)).toEqual({ low: 100 / 64, high: 400 * 64 });
    expect(farOutFences({ ...positive, min: -3 })).toEqual({ low: 100 - 900, high: 400 + 900 });
    expect(farOutFences({ ...positive, q1: 7, q3: 7 })).toBeUndefined();
  });

  it('measures distance from the median in robust spreads, and tests the rows beyond a threshold against the bulk', () => {
    expect(robustZ(positive, 200)).toBe(0);
    expect(robustZ(positive, 400 * 64)).toBeCloseTo((Math.log(400 * 64) - Math.log(200)) / (Math.log(4) / 1.349), 9);
    const few = outlierTailTest(positive, 30_000, 'high', 3);
    expect(few?.test).toBe('poisson_tail');
    expect(few?.p_value).toBeLessThan(1e-4);
    // three rows past a threshold the bulk reaches every few rows are no surprise
    expect(outlierTailTest(positive, 800, 'high', 3)?.p_value).toBeGreaterThan(0.5);
  });

  it('picks the roundest number between a fence and the nearest row beyond it', () => {
    expect(roundestBetween(4_445.3, 24_000, 'up')).toBe(5_000);
    expect(roundestBetween(4_445.3, 4_446, 'up')).toBe(4_446);
    expect(roundestBetween(0.2, 1.56, 'down')).toBe(1);
  });
});

describe('periods between two dates', () => {
  it('lists the period starts of a window, end exclusive', () => {
    expect(periodStartsBetween('2024-01-01', '2024-04-01', 'month')).toEqual(['2024-01-01', '2024-02-01', '2024-03-01']);
    expect(periodStartsBetween('2024-01-01', '2030-01-01', 'day', 100)).toBeUndefined();
  });
});
