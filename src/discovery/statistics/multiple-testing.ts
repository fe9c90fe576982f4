/**
 * Benjamini–Hochberg: q-values for a family of tests, so that reporting every finding with q ≤ α keeps
 * the expected share of false discoveries among them at most α. The family is every test a run made,
 * not just the ones that looked good — otherwise the correction corrects nothing.
 */

/** q-values in the input order (monotone step-up adjustment, capped at 1). */
export function benjaminiHochberg(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, index) => ({ p: Number.isFinite(p) ? p : 1, index })).sort((a, b) => a.p - b.p || a.index - b.index);
  const q = new Array<number>(m).fill(1);
  let running = 1;
  for (let rank = m; rank >= 1; rank--) {
    const item = order[rank - 1] as { p: number; index: number };
    running = Math.min(running, (item.p * m) / rank);
    q[item.index] = Math.min(1, running);
  }
  return q;
}
