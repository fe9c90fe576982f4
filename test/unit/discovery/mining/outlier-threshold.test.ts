/** The threshold an outlier claim states: round, and naming exactly the rows beyond the fence. */
import { describe, expect, it } from 'vitest';
import { fewRows, outlierThreshold } from '../../../../src/discovery/mining/finders/outliers.js';

describe('an outlier threshold', () => {
  it('is the roundest number between the fence and the nearest extreme row', () => {
    expect(outlierThreshold('high', 4_445.3, 24_000)).toBe(5_000);
    expect(outlierThreshold('high', 4_445.3, 4_446)).toBe(4_446);
  });

  it('lies above the nearest low row, since rows below it are the outliers', () => {
    expect(outlierThreshold('low', 1.58, 1)).toBe(1.5);
    expect(outlierThreshold('low', 812.4, 709)).toBe(800);
  });

  it('counts "a few" rows as at least 5 and at most 50, half a percent of the rows between', () => {
    expect(fewRows(100)).toBe(5);
    expect(fewRows(4_000)).toBe(20);
    expect(fewRows(1_000_000)).toBe(50);
  });
});
