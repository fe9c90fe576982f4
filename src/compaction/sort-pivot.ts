/** Pivot choice shared by the in-place quicksorts of the digest (quantile sample, number tally). */

/** The middle one of three numbers (branches, not Math.min/max: this is on the digest's hot path). */
export function medianOfThree(first: number, second: number, third: number): number {
  if (first < second) return second < third ? second : first < third ? third : first;
  return first < third ? first : second < third ? third : second;
}
