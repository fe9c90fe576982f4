import { describe, expect, it } from 'vitest';
import { parseInsights } from '../../../src/discovery/parsing/output-parser.js';
import { createOfflineAnalyst } from '../../../src/llm/offline-analyst/index.js';
import { analysisRequest, queryStep } from './prompts.js';

const brain = createOfflineAnalyst();

async function insightsFor(areaId: string, steps: Parameters<typeof analysisRequest>[1]) {
  const parsed = parseInsights(await brain(analysisRequest(areaId, steps)));
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.items;
}

const deviceFunnel = queryStep(
  4,
  'conversion: sessions with orders, abandonment after reached checkout by device type (shop.sessions)',
  'WITH child AS (SELECT c.session_id AS parent_key, COUNT(*) AS child_rows FROM shop.orders c GROUP BY 1) SELECT t.device_type AS device_type, COUNT(*) AS sessions FROM shop.sessions t LEFT JOIN child ch ON ch.parent_key = t.session_id GROUP BY 1',
  [
    { device_type: 'mobile', sessions: 18_083, reached_checkout_sessions: 10_520, reached_checkout_sessions_abandon_rate: 0.6662 },
    { device_type: 'desktop', sessions: 13_631, reached_checkout_sessions: 8_701, reached_checkout_sessions_abandon_rate: 0.2281 },
    { device_type: 'tablet', sessions: 4_361, reached_checkout_sessions: 2_695, reached_checkout_sessions_abandon_rate: 0.4045 },
  ],
);

describe('when one device abandons checkout far more than the others', () => {
  it('reports it with the numbers, segment and count from the digest and cites the step', async () => {
    const [first] = await insightsFor('conversion', [deviceFunnel]);
    expect(first?.name).toMatch(
      /^mobile: checkout abandonment significantly higher than the other device type values \(67% vs 2\d%, 2\.\d×\)$/,
    );
    expect(first?.description).toContain('desktop 23%');
    expect(first?.affected_count).toBe(10_520);
    expect(first?.source_steps).toEqual([4]);
    expect(first?.metrics).toMatchObject({
      segment_column: 'device_type',
      segment_value: 'mobile',
      count_column: 'reached_checkout_sessions',
      reached_checkout_sessions_abandon_rate: 0.6662,
      source_step: 4,
    });
    expect(first?.severity).toBe('high'); // 2.45× the rest: below the 2.5× that makes a gap critical
  });

  it('ignores the step when analysing another area', async () => {
    expect(await insightsFor('retention', [deviceFunnel])).toEqual([]);
  });
});

describe('when nothing stands out', () => {
  it('returns no insights', async () => {
    const flat = queryStep(
      2,
      'conversion: reached checkout rate by device type (shop.sessions)',
      'SELECT device_type, COUNT(*) AS sessions FROM shop.sessions GROUP BY 1',
      [
        { device_type: 'mobile', sessions: 5_000, reached_checkout_rate: 0.41 },
        { device_type: 'desktop', sessions: 4_000, reached_checkout_rate: 0.43 },
        { device_type: 'tablet', sessions: 900, reached_checkout_rate: 0.4 },
      ],
    );
    expect(await insightsFor('conversion', [flat])).toEqual([]);
  });

  it('does not report a large gap on a segment too small to trust', async () => {
    const small = queryStep(
      2,
      'conversion: reached checkout rate by browser (shop.sessions)',
      'SELECT browser, COUNT(*) AS sessions FROM shop.sessions GROUP BY 1',
      [
        { browser: 'Chrome', sessions: 5_000, reached_checkout_rate: 0.41 },
        { browser: 'Lynx', sessions: 12, reached_checkout_rate: 0.9 },
      ],
    );
    expect(await insightsFor('conversion', [small])).toEqual([]);
  });
});

describe('when a segment rate climbs while the others stay flat', () => {
  it('reports the rising segment with first and last months', async () => {
    const trend = queryStep(
      7,
      'revenue: with refunds rate by month: first vs last 3 months by product category (shop.order_items)',
      'WITH monthly AS (SELECT 1) SELECT 1',
      [
        {
          product_category: 'Electronics',
          order_items: 3_253,
          with_refunds_rate: 0.151,
          first_3_months_with_refunds_rate: 0.035,
          last_3_months_with_refunds_rate: 0.238,
          monthly_change_with_refunds_rate: 0.022,
          months: 12,
        },
        {
          product_category: 'Apparel',
          order_items: 3_287,
          with_refunds_rate: 0.035,
          first_3_months_with_refunds_rate: 0.027,
          last_3_months_with_refunds_rate: 0.038,
          monthly_change_with_refunds_rate: 0.001,
          months: 12,
        },
        {
          product_category: 'Books',
          order_items: 3_100,
          with_refunds_rate: 0.033,
          first_3_months_with_refunds_rate: 0.034,
          last_3_months_with_refunds_rate: 0.03,
          monthly_change_with_refunds_rate: -0.001,
          months: 12,
        },
      ],
    );
    const items = await insightsFor('revenue', [trend]);
    const rising = items.find((item) => /rising/.test(item.name));
    expect(rising?.name).toBe('Electronics: refund rate rising month over month: 3.5% → 24% while other product category values stay flat');
    expect(rising?.affected_count).toBe(3_253);
    expect(rising?.metrics).toMatchObject({ segment_value: 'Electronics', count_column: 'order_items' });
  });
});

describe('when most people stop at one position of a scale', () => {
  it('reports the stopping point', async () => {
    const furthest = queryStep(
      9,
      'retention: furthest level number reached per players (shop.players)',
      'WITH furthest AS (SELECT 1) SELECT 1',
      [
        { furthest_level_number: 12, players: 3_130, share_of_players: 0.4 },
        { furthest_level_number: 40, players: 900, share_of_players: 0.11 },
        { furthest_level_number: 3, players: 210, share_of_players: 0.03 },
        { furthest_level_number: 4, players: 200, share_of_players: 0.03 },
        { furthest_level_number: 5, players: 190, share_of_players: 0.02 },
      ],
    );
    const [stop] = await insightsFor('retention', [furthest]);
    expect(stop?.name).toMatch(/^Progression drop at level 12: 3,130 players stop there/);
    expect(stop?.metrics).toMatchObject({ segment_column: 'furthest_level_number', segment_value: 12 });
  });
});
