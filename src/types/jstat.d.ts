/** The part of jStat (https://github.com/jstat/jstat) the statistics module uses: distribution functions, ln Γ and erfc. */
declare module 'jstat' {
  interface ContinuousDistribution2 {
    cdf(x: number, a: number, b: number): number;
  }
  interface ContinuousDistribution1 {
    cdf(x: number, a: number): number;
  }
  const jStat: {
    normal: ContinuousDistribution2;
    studentt: ContinuousDistribution1;
    chisquare: ContinuousDistribution1;
    binomial: { cdf(k: number, n: number, p: number): number; pdf(k: number, n: number, p: number): number };
    /** ln Γ(x) */
    gammaln(x: number): number;
    /** The complementary error function, 1 − erf(x). */
    erfc(x: number): number;
  };
  const jstat: { jStat: typeof jStat };
  export default jstat;
}
