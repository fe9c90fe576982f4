/** Benjamini–Hochberg q-values against SciPy 1.17's `stats.false_discovery_control(p, method='bh')`. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { benjaminiHochberg } from '../../../../src/discovery/statistics/index.js';

describe('benjaminiHochberg', () => {
  it('gives the step-up q-values in the input order', () => {
    const q = benjaminiHochberg([0.01, 0.04, 0.03, 0.005, 0.5]);
    [0.025, 0.05, 0.05, 0.025, 0.5].forEach((expected, index) => expect(q[index]).toBeCloseTo(expected, 12));
  });

  it('matches SciPy on the 25 p-values of Benjamini and Hochberg’s own example', () => {
    const p = [
      0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205, 0.212, 0.216, 0.222, 0.251, 0.269, 0.275, 0.34, 0.341, 0.384, 0.569, 0.594,
      0.696, 0.762, 0.94, 0.942, 0.975, 0.986,
    ];
    const expected = [
      0.025, 0.1, 0.21, 0.21, 0.21, 0.25, 0.2642857142857143, 0.49107142857142866, 0.49107142857142866, 0.49107142857142866,
      0.49107142857142866, 0.49107142857142866, 0.49107142857142866, 0.49107142857142866, 0.5328125, 0.5328125, 0.5647058823529413,
      0.781578947368421, 0.781578947368421, 0.87, 0.9071428571428571, 0.986, 0.986, 0.986, 0.986,
    ];
    benjaminiHochberg(p).forEach((q, index) => expect(q).toBeCloseTo(expected[index] as number, 12));
  });

  it('reads a missing or non-finite p-value as 1, and a family of none as none', () => {
    expect(benjaminiHochberg([Number.NaN, 0.01])).toEqual([1, 0.02]);
    expect(benjaminiHochberg([])).toEqual([]);
  });

  it('never lowers a p-value, keeps their order and stays at most 1', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 60 }), (p) => {
        const q = benjaminiHochberg(p);
        q.forEach((value, index) => {
          expect(value).toBeGreaterThanOrEqual((p[index] as number) - 1e-15);
          expect(value).toBeLessThanOrEqual(1);
        });
        for (let i = 0; i < p.length; i++)
          for (let j = 0; j < p.length; j++) if ((p[i] as number) < (p[j] as number)) expect(q[i]).toBeLessThanOrEqual(q[j] as number);
      }),
      { numRuns: 100 },
    );
  });
});
