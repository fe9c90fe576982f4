/**
 * The target for charts, on a real run: the e-commerce demo discovered by the offline analyst,
 * verified (which computes each claim's chart) and rendered to the HTML report. Every insight with a
 * chart plots its claim's own measure — the plotted values are the verifier's recount of the claim's
 * metric — grouped by the claim's own column or series; no title carries an internal marker; rate and
 * share axes are in %.
 */
import { describe, expect, it } from 'vitest';
import type { Insight } from '../../src/domain/index.js';
import { renderRunReport } from '../../src/report/index.js';
import { runDemoDiscovery } from '../integration/offline-analyst/demo-discovery.js';

function card(page: string, id: string): string {
  const start = page.indexOf(`id="insight-${id}"`);
  return page.slice(start, page.indexOf('</article>', start));
}

/** The words a column's label or name is written with, unit left out ("order total (USD)" → "order total"). */
function words(label: string | undefined, column: string): string {
  return (label && label.trim() !== '' ? label : column.replace(/_/g, ' ')).replace(/\s*\([^()]*\)\s*$/, '').toLowerCase();
}

function near(actual: number | null | undefined, expected: number | null | undefined): boolean {
  if (typeof actual !== 'number' || typeof expected !== 'number') return false;
  return Math.abs(actual - expected) <= 1e-9 + 1e-6 * Math.max(Math.abs(actual), Math.abs(expected));
}

describe('when the e-commerce demo run is reported', () => {
  it('draws each insight’s chart from its own claim, titled in words, with rates in %', async () => {
    const { run, result, steps } = await runDemoDiscovery('ecommerce', 24);
    const page = renderRunReport({ run, result, steps });
    const insights: Insight[] = result.insights;
    const charted = insights.filter((insight) => insight.validation?.claim_check?.chart);
    const summary = { insights: insights.length, charted: charted.length, mismatched: 0 };
    expect(charted.length).toBeGreaterThanOrEqual(insights.length * 0.8);

    for (const insight of charted) {
      const claim = insight.claim;
      const check = insight.validation?.claim_check;
      const chart = check?.chart;
      if (!claim || !check || !chart) throw new Error(`${insight.id}: charted without a claim`);
      const html = card(page, insight.id);
      const title = /<svg[^>]*aria-label="([^"]*)"/.exec(html)?.[1] ?? '';
      expect(title, `${insight.id} has an svg with a title`).not.toBe('');
      expect(title, `${insight.id}: ${title}`).not.toMatch(/\[|keywords|_/);

      // the measure: the title names the claim's metric, and the plotted numbers are its recount
      const measure = claim.metric.label ? words(claim.metric.label, '') : '';
      if (measure && claim.kind !== 'outlier' && claim.metric.kind !== 'count') expect(title.toLowerCase()).toContain(measure);
      if ((claim.kind === 'difference' || claim.kind === 'share') && claim.segment?.value !== undefined) {
        const segment = chart.points.filter((point) => point.role === 'segment');
        expect(segment, `${insight.id}: one bar is the claimed segment`).toHaveLength(1);
        if (!near(segment[0]?.value, check.value)) summary.mismatched += 1;
        expect(segment[0]?.value, `${insight.id}: the segment's bar is the recounted value`).toBeCloseTo(check.value ?? Number.NaN, 9);
      }
      if (claim.kind === 'shift' && !chart.periods_per_point) {
        const inside = chart.points.filter((point) => point.span === 'window').map((point) => point.value ?? 0);
        expect(inside.reduce((sum, value) => sum + value, 0) / inside.length).toBeCloseTo(check.value ?? Number.NaN, 6);
      }
      if (claim.kind === 'trend' && !chart.periods_per_point) expect(chart.points).toHaveLength(check.fit?.periods ?? -1);

      // the grouping: the claim's segment column, its series, or its other measure
      const grouping =
        claim.kind === 'difference' || claim.kind === 'share'
          ? claim.segment
          : claim.kind === 'correlation'
            ? claim.x && { column: claim.x.column, label: claim.x.label }
            : claim.kind === 'outlier'
              ? undefined
              : claim.series;
      if (grouping && !('grain' in grouping && grouping.grain && ['hour_of_day', 'day_of_week', 'month_of_year'].includes(grouping.grain)))
        expect(title.toLowerCase(), `${insight.id}: ${title}`).toContain(
          'grain' in grouping && grouping.grain ? (grouping.grain as string) : words(grouping.label, grouping.column),
        );

      // units: a rate or a share is plotted in percent
      if (claim.metric.kind === 'rate' || claim.metric.kind === 'share' || claim.kind === 'share') {
        expect(html, `${insight.id}: percent axis`).toMatch(/ \(%\)<\/text>/);
        expect(html).toMatch(/>\d+(\.\d+)?%<\/text>/);
      }
    }
    // every charted insight gets exactly one chart, in its own card
    expect(page.match(/<svg/g)).toHaveLength(charted.length);
    for (const insight of insights.filter((candidate) => !candidate.validation?.claim_check?.chart))
      expect(card(page, insight.id)).toMatch(/<p class="no-chart small">No chart: /);
    console.log(`insight charts on the ecommerce demo: ${JSON.stringify(summary)}`);
    expect(summary.mismatched).toBe(0);
  }, 300_000);
});
