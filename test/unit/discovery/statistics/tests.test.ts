/**
 * The significance tests against values computed independently with SciPy 1.17 (`scipy.stats`:
 * ttest_ind(equal_var=False), median_test(correction=False), binomtest, pearsonr, linregress, norm and
 * t survival functions) on the same inputs; each expected figure below names the call that produced it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  binomialTest,
  compoundPoissonZ,
  linearFit,
  momentsOf,
  moodMedian,
  normalTwoSided,
  pearsonT,
  poissonRateTest,
  poolMoments,
  studentTwoSided,
  twoProportionZ,
  welchT,
} from '../../../../src/discovery/statistics/index.js';

/** Relative closeness for p-values that span many orders of magnitude. */
function expectRelative(actual: number | undefined, expected: number, tolerance = 1e-6): void {
  expect(actual).toBeDefined();
  expect(Math.abs((actual as number) - expected) / Math.abs(expected)).toBeLessThan(tolerance);
}

describe('distribution tails', () => {
  it('gives the two-sided normal and Student t p-values', () => {
    // 2 * norm.sf(2.5); 2 * t.sf(2.5, 7)
    expectRelative(normalTwoSided(2.5), 0.012419330651552265);
    expectRelative(normalTwoSided(-2.5), 0.012419330651552265);
    expectRelative(studentTwoSided(2.5, 7), 0.04099221858575289);
  });

  it('answers 1 for a test without degrees of freedom, never NaN', () => {
    expect(studentTwoSided(3, 0)).toBe(1);
    expect(normalTwoSided(Number.NaN)).toBe(1);
  });
});

describe('twoProportionZ', () => {
  it('pools the two proportions: 30 of 100 against 20 of 100', () => {
    // z = 0.1 / sqrt(0.25 × 0.75 × (1/100 + 1/100)); p = 2 * norm.sf(z)
    const result = twoProportionZ(30, 100, 20, 100);
    expectRelative(result?.statistic, 1.6329931618554518);
    expectRelative(result?.p_value, 0.10247043485974941);
  });

  it('has nothing to test when a side is empty or both rates are 0 or 1', () => {
    expect(twoProportionZ(0, 0, 5, 10)).toBeUndefined();
    expect(twoProportionZ(10, 10, 20, 20)).toBeUndefined();
  });
});

describe('welchT', () => {
  // Welch's first example on Wikipedia: ttest_ind(a, b, equal_var=False)
  const a = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4];
  const b = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4];

  it('matches SciPy on the statistic, the Welch–Satterthwaite degrees of freedom and the p-value', () => {
    const result = welchT(momentsOf(a), momentsOf(b));
    expectRelative(result?.statistic, -2.455356398286006);
    expectRelative(result?.df, 24.988529290231416);
    expectRelative(result?.p_value, 0.021378001462866992);
  });

  it('needs two values a side; with no spread on either side, equal means say nothing and different ones differ for certain', () => {
    expect(welchT({ n: 1, mean: 3, variance: 0 }, momentsOf(b))).toBeUndefined();
    expect(welchT({ n: 5, mean: 3, variance: 0 }, { n: 5, mean: 3, variance: 0 })).toBeUndefined();
    const certain = welchT({ n: 5, mean: 3, variance: 0 }, { n: 5, mean: 4, variance: 0 });
    expect(certain?.statistic).toBeLessThan(0);
    expect(certain?.p_value).toBeLessThan(1e-100);
  });
});

describe('moodMedian', () => {
  it('matches median_test(correction=False) from the counts above the pooled median', () => {
    // x = [10,12,15,18,20,22,25,30,35,40], y = [5,7,8,9,11,13,14,16,17,19,21]: pooled median 16, 7 of x and 3 of y above
    const result = moodMedian(7, 10, 3, 11);
    expectRelative(result?.statistic, 3.833801652892563);
    expectRelative(result?.p_value, 0.05022888445946118);
    expect(result?.df).toBe(1);
  });

  it('has nothing to test when every value lies on one side of the median', () => {
    expect(moodMedian(0, 10, 0, 10)).toBeUndefined();
  });
});

describe('binomialTest', () => {
  it.each([
    // binomtest(k, n, p).pvalue
    [7, 20, 0.5, 0.26317596435546875],
    [3, 30, 0.25, 0.059042966603656336],
    [560, 1000, 0.5, 0.00016504987055045286],
    [600, 1000, 0.5, 2.728464156065947e-10],
    [961, 1407, 0.5, 1.0703095035984104e-43],
    [1100, 2000, 0.5, 8.45708953550381e-6],
    [1500, 2000, 0.7, 8.061772714336312e-7],
  ])('%d of %d against %s: the exact p-value', (k, n, p, expected) => {
    expectRelative(binomialTest(k, n, p)?.p_value, expected, 1e-6);
  });

  it('stays exact past n ≈ 1,030, where the pmf of jStat overflows', () => {
    // regression: 961 of 1,407 came out as p = 1 (and 1,100 of 2,000 as 1e-300) from NaN and Infinity terms
    expect(binomialTest(961, 1407, 0.5)?.p_value).toBeLessThan(1e-40);
    expect(binomialTest(704, 1407, 0.5)?.p_value).toBeGreaterThan(0.9);
  });

  it('uses the normal approximation above 2,000 trials', () => {
    const result = binomialTest(2600, 5000, 0.5);
    const z = (2600 - 2500) / Math.sqrt(5000 * 0.25);
    expectRelative(result?.statistic, z);
    expectRelative(result?.p_value, normalTwoSided(z));
  });

  it('refuses impossible inputs', () => {
    expect(binomialTest(3, 0, 0.5)).toBeUndefined();
    expect(binomialTest(3, 10, 1)).toBeUndefined();
    expect(binomialTest(11, 10, 0.5)).toBeUndefined();
  });

  it('is symmetric for p = 0.5 and never above 1', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_500 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, share) => {
        const k = Math.round(share * n);
        const left = binomialTest(k, n, 0.5)?.p_value as number;
        const right = binomialTest(n - k, n, 0.5)?.p_value as number;
        expect(left).toBeLessThanOrEqual(1);
        expect(Math.abs(left - right)).toBeLessThan(1e-9 + 1e-6 * left);
      }),
      { numRuns: 60 },
    );
  });
});

describe('poissonRateTest', () => {
  it('conditions on the total: 30 events over 100 against 12 over 80', () => {
    // binomtest(30, 42, 100 / 180)
    const result = poissonRateTest(30, 100, 12, 80);
    expect(result?.test).toBe('poisson_rate');
    expectRelative(result?.p_value, 0.0432169490226412);
  });
});

describe('compoundPoissonZ', () => {
  it('divides the difference of the totals by the root of both sums of squares', () => {
    // 200 rows of 1 against 20 rows of 1: (200 − 20) / √(200 + 20)
    const result = compoundPoissonZ({ sum: 200, squares: 200 }, { sum: 20, squares: 20 });
    expectRelative(result?.statistic, 180 / Math.sqrt(220));
    expect(result?.test).toBe('compound_poisson_z');
    expect(result?.p_value).toBeLessThan(1e-20);
  });

  it('finds equal totals of equal spread not significant', () => {
    expect(compoundPoissonZ({ sum: 50, squares: 60 }, { sum: 50, squares: 60 })?.p_value).toBe(1);
    expect(compoundPoissonZ({ sum: 0, squares: 0 }, { sum: 0, squares: 0 })).toBeUndefined();
  });
});

describe('pearsonT', () => {
  it('matches pearsonr on a strong and a weak relation', () => {
    expectRelative(pearsonT(0.9995731777706597, 10)?.p_value, 1.4512549681192736e-13, 1e-4);
    expectRelative(pearsonT(0.20154144862179718, 10)?.p_value, 0.5766036222283658);
    expect(pearsonT(0.2, 10)?.df).toBe(8);
  });

  it('needs three pairs and a finite r, and survives r = ±1', () => {
    expect(pearsonT(0.5, 2)).toBeUndefined();
    expect(pearsonT(Number.NaN, 50)).toBeUndefined();
    expect(pearsonT(1, 50)?.p_value).toBeLessThan(1e-10);
  });
});

describe('linearFit', () => {
  const xs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

  it('matches linregress: slope, intercept, r² and the slope t-test', () => {
    const fit = linearFit(xs, [5, 3, 6, 2, 7, 4, 8, 3, 6, 5]);
    expectRelative(fit?.slope, 0.1272727272727273);
    expectRelative(fit?.intercept, 4.2);
    expectRelative(fit?.r2, 0.04061895551257251);
    expectRelative(fit?.test.p_value, 0.5766036222283659);
    const steep = linearFit(xs, [2.1, 3.9, 6.2, 7.8, 10.1, 12.2, 13.8, 16.1, 18.3, 19.9]);
    expectRelative(steep?.slope, 2.0036363636363634);
    expectRelative(steep?.r2, 0.999146537718535);
    expectRelative(steep?.test.p_value, 1.4512549681192718e-13, 1e-4);
  });

  it('needs three points and some spread in x', () => {
    expect(linearFit([1, 2], [3, 4])).toBeUndefined();
    expect(linearFit([2, 2, 2], [1, 2, 3])).toBeUndefined();
  });

  it('gives a perfect line a huge t and r² 1, a flat one t 0', () => {
    const line = linearFit([1, 2, 3, 4], [3, 5, 7, 9]);
    expect(line?.r2).toBe(1);
    expect(line?.test.p_value).toBeLessThan(1e-10);
    expect(linearFit([1, 2, 3, 4], [5, 5, 5, 5])?.test.statistic).toBe(0);
  });
});

describe('moments', () => {
  it('pools groups to the moments of their union', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.double({ min: -1e3, max: 1e3, noNaN: true }), { minLength: 1, maxLength: 20 }), {
          minLength: 1,
          maxLength: 5,
        }),
        (groups) => {
          const pooled = poolMoments(groups.map(momentsOf));
          const union = momentsOf(groups.flat());
          expect(pooled.n).toBe(union.n);
          expect(pooled.mean).toBeCloseTo(union.mean, 6);
          expect(pooled.variance).toBeCloseTo(union.variance, 4);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('has no mean for no values and no variance for one', () => {
    expect(Number.isNaN(momentsOf([]).mean)).toBe(true);
    expect(momentsOf([4])).toEqual({ n: 1, mean: 4, variance: 0 });
  });
});
