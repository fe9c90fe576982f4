import { describe, expect, it } from 'vitest';
import { formatNumber } from '../../../src/report/format.js';
import { escapeHtml, renderRunReport } from '../../../src/report/index.js';
import { ecommerceReportFixture } from '../../fixtures/report/ecommerce-run.js';

/** The markup of the element whose opening tag carries `id="…"`, up to its closing tag (no nesting of the same tag inside). */
function elementById(page: string, id: string, tag: string): string {
  const start = page.indexOf(`id="${id}"`);
  if (start === -1) throw new Error(`no element with id ${id}`);
  const end = page.indexOf(`</${tag}>`, start);
  return page.slice(start, end);
}

describe('when the e-commerce fixture run is rendered', () => {
  const fixture = ecommerceReportFixture();
  const page = renderRunReport(fixture);

  it('is one complete HTML document', () => {
    expect(page.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(page.trimEnd().endsWith('</html>')).toBe(true);
  });

  it('loads nothing from the network', () => {
    expect(page).not.toMatch(/https?:\/\//i);
    expect(page).not.toMatch(/\b(src|href)\s*=\s*["']?\/\//i);
    expect(page).not.toMatch(/@import|url\(/i);
    expect(page).not.toMatch(/<(link|img|iframe|object|embed)\b/i);
    expect(page.match(/<script\b/g)).toHaveLength(1);
  });

  it('produces the same string for the same input, and does not change the input', () => {
    expect(renderRunReport(ecommerceReportFixture())).toBe(page);
    expect(fixture).toEqual(ecommerceReportFixture());
  });

  it('shows the run type, the failed area in a red banner, and the totals', () => {
    const summary = elementById(page, 'summary', 'section');
    expect(summary).toContain('Partial run');
    expect(summary).toMatch(/class="banner banner-error"[\s\S]*Pricing &amp; promotions[\s\S]*timed out/);
    expect(summary).toContain(`>${fixture.result.insights.length}</div>`);
    const telemetry = fixture.result.telemetry;
    const inputTokens = Object.values(telemetry.usage_by_phase)
      .flatMap((byModel) => Object.values(byModel))
      .reduce((sum, usage) => sum + usage.input_tokens, 0);
    expect(summary).toContain(`${formatNumber(inputTokens)} in`);
  });

  it('gives every insight and recommendation an anchor, and every in-page link a target', () => {
    for (const insight of fixture.result.insights) {
      expect(page).toContain(`id="insight-${insight.id}"`);
      expect(page).toContain(escapeHtml(insight.name));
    }
    for (const recommendation of fixture.result.recommendations) {
      expect(page).toContain(`id="rec-${recommendation.id}"`);
      expect(page).toContain(escapeHtml(recommendation.title));
    }
    const ids = new Set([...page.matchAll(/\bid="([^"]+)"/g)].map((match) => match[1]));
    const targets = [...page.matchAll(/href="#([^"]+)"/g)].map((match) => match[1]);
    expect(targets.length).toBeGreaterThan(20);
    for (const target of targets) expect(ids.has(target), `#${target} has no target`).toBe(true);
  });

  it('links each recommendation to the insights it cites and each cited insight back to it', () => {
    for (const recommendation of fixture.result.recommendations) {
      const card = elementById(page, `rec-${recommendation.id}`, 'article');
      for (const insightId of recommendation.related_insight_ids) {
        expect(card).toContain(`href="#insight-${insightId}"`);
        expect(elementById(page, `insight-${insightId}`, 'article')).toContain(`href="#rec-${recommendation.id}"`);
      }
    }
  });

  it('shows claimed and verified counts on each verification badge, by status', () => {
    const card = (id: string): string => elementById(page, `insight-${id}`, 'article');
    expect(card('conversion-1')).toMatch(/tone-good[\s\S]*Confirmed[\s\S]*recounted 1.6% vs 3.9%/);
    expect(card('conversion-2')).toMatch(/tone-warn[\s\S]*Adjusted[\s\S]*claimed 10,722 → verified 8,310/);
    expect(card('retention-3')).toMatch(/tone-bad[\s\S]*Rejected[\s\S]*claimed 12,400 · verified 0 · excluded from recommendations/);
    expect(card('conversion-4')).toMatch(/tone-neutral[\s\S]*Verification error[\s\S]*claimed 6,570 · not verified/);
    expect(card('conversion-4')).toContain('Referenced column &quot;payment_provider&quot; not found');
    expect(card('retention-4')).toMatch(/Unverified[\s\S]*no checkable claim[\s\S]*No affected count to verify/);
  });

  it('puts the cited steps under each insight with escaped SQL and the digest', () => {
    const card = elementById(page, 'insight-conversion-4', 'article');
    expect(card).toContain('Step 6 · Cart abandonment by payment method');
    expect(card).toContain('<pre class="sql">');
    expect(card).toContain('WHERE items &gt; 0 AND created_at &gt;= DATE &#39;2024-09-01&#39;');
    expect(card).toContain('Column summaries');
    expect(card).toContain('<td>bank_transfer</td>');
  });

  it('draws each insight’s chart in its own card, from its claim, and says in one line why an insight has none', () => {
    const conversion = elementById(page, 'insight-conversion-1', 'article');
    expect(conversion).toContain('<title>Conversion rate by device</title>');
    expect(conversion).toContain('Dark blue: sessions whose device is mobile');
    expect(conversion).toContain('Orange: sessions whose device is desktop');
    expect(conversion).toContain('>1.6%</text>');
    expect(conversion).toContain('conversion rate (%)');
    const repeat = elementById(page, 'insight-retention-2', 'article');
    expect(repeat).toContain('<title>90-day repeat rate per week</title>');
    expect(repeat).toContain('<polyline');
    expect(repeat).toContain('each point averages 2 consecutive weeks and is labelled by the first');
    expect(elementById(page, 'insight-retention-1', 'article')).toContain('No chart: the insight states no claim the engine can measure.');
    // step digests stay reachable through the evidence, and no exploration step is charted
    expect(page).not.toContain('No chart for this area');
    expect(page.match(/<svg/g)).toHaveLength(2);
  });

  it('puts no internal marker or raw column key in any chart title', () => {
    for (const match of page.matchAll(/<svg[^>]*aria-label="([^"]*)"/g)) {
      expect(match[1]).not.toMatch(/\[|keywords|_/);
    }
  });

  it('lists usage per phase and model and the largest prompt against its window', () => {
    const cost = elementById(page, 'cost', 'section');
    expect(cost.match(/<tr><td>verification<\/td>/g)).toHaveLength(2);
    expect(cost).toMatch(/Largest prompt[\s\S]*analysis · area conversion[\s\S]*21,480[\s\S]*20,655[\s\S]*200,000/);
  });

  it('shows the tokens read from the prompt cache and their share of the input', () => {
    const usage = fixture.result.telemetry.usage_by_phase;
    const [phase, byModel] = Object.entries(usage)[0]!;
    const [model, totals] = Object.entries(byModel)[0]!;
    const cachedUsage = {
      ...usage,
      [phase]: { ...byModel, [model]: { ...totals, cache_read_tokens: totals.input_tokens, cache_write_tokens: 7 } },
    };
    const withCache = renderRunReport({
      ...fixture,
      result: { ...fixture.result, telemetry: { ...fixture.result.telemetry, usage_by_phase: cachedUsage } },
    });
    const cost = elementById(withCache, 'cost', 'section');
    expect(cost).toContain('<th class="num" title="input tokens read from the provider\'s prompt cache">cached</th>');
    expect(cost).toMatch(/\d+(\.\d)?% of the input tokens were read from the provider's prompt cache/);
    expect(elementById(page, 'cost', 'section')).toMatch(/>0% of the input tokens were read/);
  });

  it('logs every step, with original and executed SQL for a fixed query', () => {
    for (const step of fixture.steps) expect(page).toContain(`id="step-${step.step}"`);
    const fixed = page.slice(page.indexOf('id="step-5"'), page.indexOf('id="step-6"'));
    expect(fixed).toContain('SELECT stage_name, count(DISTINCT session_id)');
    expect(fixed).toContain('Original SQL (failed)');
    expect(fixed).toContain('Executed SQL after 1 fix attempt');
  });
});

describe('when LLM-written text contains markup', () => {
  it('escapes it everywhere it appears', () => {
    const fixture = ecommerceReportFixture();
    const attack = '<script>alert("pwned")</script><img src=x onerror=alert(1)>';
    const insight = fixture.result.insights[0];
    const recommendation = fixture.result.recommendations[0];
    const step = fixture.steps.find((candidate) => candidate.step === 4);
    if (!insight || !recommendation || !step?.compact) throw new Error('fixture changed shape');
    insight.name = attack;
    insight.description = attack;
    insight.indicators = [attack];
    recommendation.title = attack;
    recommendation.actions = [attack];
    step.query_purpose = attack;
    step.executed_query = `SELECT '${attack}'`;
    step.compact.head_rows = [{ device: attack, sessions: 1 }];
    const page = renderRunReport({ ...fixture, areas: fixture.areas.map((area) => ({ ...area, name: attack })) });
    expect(page.match(/<script\b/g)).toHaveLength(1);
    expect(page).not.toContain('<img');
    expect(page).toContain('&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;');
  });
});

describe('when a run failed before producing anything', () => {
  it('still renders every section, saying what is missing', () => {
    const fixture = ecommerceReportFixture();
    const result = {
      ...fixture.result,
      run_type: 'failed' as const,
      insights: [],
      recommendations: [],
      analysis_log: fixture.result.analysis_log.map((area) => ({
        ...area,
        status: 'failed' as const,
        insight_ids: [],
        error: 'warehouse unreachable',
      })),
      validation_log: [],
      telemetry: { ...fixture.result.telemetry, llm_calls: [], usage_by_phase: {} },
    };
    const page = renderRunReport({ run: { ...fixture.run, status: 'failed' }, result, steps: [] });
    expect(page).toContain('Failed run');
    expect(page).toContain('class="banner banner-error"');
    expect(page.match(/No insights from this area\./g)).toHaveLength(3);
    expect(page).toContain('No recommendations in this run.');
    expect(page).toContain('No LLM usage was recorded for this run.');
    expect(page).toContain('No exploration steps were stored for this run.');
    expect(page).not.toContain('<svg');
  });
});

describe('when areas are given or left out', () => {
  const areaOrder = (page: string): string[] =>
    [...page.matchAll(/<section class="area" id="area-([^"]+)"/g)].map((match) => match[1] ?? '');

  it('follows the given pack order', () => {
    const fixture = ecommerceReportFixture();
    const reversed = [...fixture.areas].reverse();
    expect(areaOrder(renderRunReport({ ...fixture, areas: reversed }))).toEqual(reversed.map((area) => area.id));
  });

  it('falls back to the analysis log order and its area names', () => {
    const fixture = ecommerceReportFixture();
    const page = renderRunReport({ run: fixture.run, result: fixture.result, steps: fixture.steps });
    expect(areaOrder(page)).toEqual(fixture.result.analysis_log.map((area) => area.area_id));
    expect(page).toContain('<h3>Customer retention</h3>');
  });
});
