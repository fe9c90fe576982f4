/**
 * The offline analyst's detectors for the patterns real tables show, each on a small synthetic result
 * rendered the way the engine renders it: count concentration, mixes, text terms, monthly spikes and
 * per-value trends, step changes, brackets, correlations, repeated rows, gaps between means tested
 * with their spread, and ranking by the team's goal. Each also shows a negative case.
 */
import { describe, expect, it } from 'vitest';
import { parseInsights } from '../../../src/discovery/parsing/output-parser.js';
import type { ExplorationStep } from '../../../src/domain/index.js';
import { createOfflineAnalyst } from '../../../src/llm/offline-analyst/index.js';
import { analysisRequest, queryStep } from './prompts.js';

const brain = createOfflineAnalyst();

async function insightsFor(steps: ExplorationStep[], goal = '') {
  const request = analysisRequest('conversion', steps);
  const parsed = parseInsights(await brain({ ...request, system: goal ? `The team wants to learn: ${goal}` : 'base context' }));
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.items;
}

const BY_CATEGORY = `SELECT COALESCE(CAST(t.category AS VARCHAR), '(none)') AS category,
       COUNT(*) AS tickets,
       AVG((epoch(CAST(t.closed_at AS TIMESTAMP)) - epoch(CAST(t.opened_at AS TIMESTAMP))) / 86400.0) AS avg_days_opened_to_closed,
       STDDEV_SAMP((epoch(CAST(t.closed_at AS TIMESTAMP)) - epoch(CAST(t.opened_at AS TIMESTAMP))) / 86400.0) AS sd_days_opened_to_closed,
       COUNT(*) * 1.0 / SUM(COUNT(*)) OVER () AS share_of_tickets
FROM main.tickets t
GROUP BY 1`;

describe('when one value of a column holds far more rows than the others', () => {
  it('names it with its count, the median value and a count claim against a typical value', async () => {
    const step = queryStep(3, 'conversion: rows by category (main.tickets)', BY_CATEGORY, [
      { category: 'Hardware', tickets: 406, avg_days_opened_to_closed: 7.6, sd_days_opened_to_closed: 4, share_of_tickets: 0.812 },
      { category: 'Software', tickets: 33, avg_days_opened_to_closed: 6.4, sd_days_opened_to_closed: 4, share_of_tickets: 0.066 },
      { category: 'Network', tickets: 22, avg_days_opened_to_closed: 6.7, sd_days_opened_to_closed: 4, share_of_tickets: 0.044 },
      { category: 'Database', tickets: 19, avg_days_opened_to_closed: 7.1, sd_days_opened_to_closed: 4, share_of_tickets: 0.038 },
      { category: 'Inquiry', tickets: 20, avg_days_opened_to_closed: 7, sd_days_opened_to_closed: 4, share_of_tickets: 0.04 },
    ]);
    const found = (await insightsFor([step])).find((item) => /significantly more/.test(item.name));
    expect(found?.name).toBe('Hardware: significantly more tickets than the other category values (406 of 500, 81%; median 22)');
    expect(found?.claim).toMatchObject({
      metric: { kind: 'count', table: 'main.tickets' },
      segment: { column: 'category', value: 'Hardware' },
      comparison: { kind: 'group', group: { column: 'category', value: 'Network' } },
      value: 406,
      comparison_value: 22,
      direction: 'higher',
    });
  });

  it('stays silent when the counts are even', async () => {
    const step = queryStep(3, 'conversion: rows by category (main.tickets)', BY_CATEGORY, [
      { category: 'A', tickets: 104, share_of_tickets: 0.208 },
      { category: 'B', tickets: 100, share_of_tickets: 0.2 },
      { category: 'C', tickets: 98, share_of_tickets: 0.196 },
      { category: 'D', tickets: 99, share_of_tickets: 0.198 },
      { category: 'E', tickets: 99, share_of_tickets: 0.198 },
    ]);
    expect((await insightsFor([step])).filter((item) => /significantly more/.test(item.name))).toEqual([]);
  });
});

describe('when a small segment has a far shorter duration and the query measured the spread', () => {
  it('reports it (Welch test), names both extremes, and calls neither a strength nor a weak spot', async () => {
    const step = queryStep(4, 'conversion: durations by department (main.expenses)', BY_CATEGORY.replace(/tickets/g, 'expenses'), [
      { category: 'Support', expenses: 191, avg_days_opened_to_closed: 11.1, sd_days_opened_to_closed: 6.1, share_of_expenses: 0.55 },
      { category: 'Sales', expenses: 85, avg_days_opened_to_closed: 10.4, sd_days_opened_to_closed: 6.4, share_of_expenses: 0.24 },
      { category: 'IT', expenses: 27, avg_days_opened_to_closed: 9, sd_days_opened_to_closed: 6.6, share_of_expenses: 0.08 },
      { category: 'Marketing', expenses: 25, avg_days_opened_to_closed: 24, sd_days_opened_to_closed: 5, share_of_expenses: 0.07 },
      { category: 'Development', expenses: 18, avg_days_opened_to_closed: 0.83, sd_days_opened_to_closed: 0.86, share_of_expenses: 0.05 },
    ]);
    const items = await insightsFor([step]);
    const fast = items.find((item) => item.name.startsWith('Development:'));
    expect(fast?.name).toMatch(
      /^Development: average closing time \(from opened to closed\) significantly lower than the other category values \(0\.83 days vs 1\d\.\d+ days/,
    );
    expect(fast?.description).not.toMatch(/^(Strength|Weak spot):/);
    expect(fast?.description).toMatch(/varies across categories, from 0\.83 days \(Development\) to 24 days \(Marketing\)/);
    expect(fast?.claim).toMatchObject({
      metric: { kind: 'duration_mean', table: 'main.expenses', start_column: 'opened_at', end_column: 'closed_at', unit: 'days' },
      segment: { column: 'category', value: 'Development' },
      comparison: { kind: 'rest' },
      direction: 'lower',
    });
    expect(items.some((item) => item.name.startsWith('Marketing:') && /significantly higher/.test(item.name))).toBe(true);
  });

  it('does not report a small segment whose gap the spread does not support', async () => {
    const step = queryStep(4, 'conversion: durations by category (main.tickets)', BY_CATEGORY, [
      { category: 'A', tickets: 300, avg_days_opened_to_closed: 10, sd_days_opened_to_closed: 9, share_of_tickets: 0.94 },
      { category: 'B', tickets: 12, avg_days_opened_to_closed: 5, sd_days_opened_to_closed: 9, share_of_tickets: 0.04 },
      { category: 'C', tickets: 8, avg_days_opened_to_closed: 11, sd_days_opened_to_closed: 9, share_of_tickets: 0.02 },
    ]);
    expect((await insightsFor([step])).filter((item) => /average closing time/.test(item.name))).toEqual([]);
  });
});

const MIX_SQL = `WITH cells AS (
  SELECT 'department' AS outer_column, COALESCE(CAST(t.department AS VARCHAR), '(none)') AS outer_value, 'category' AS inner_column, COALESCE(CAST(t.category AS VARCHAR), '(none)') AS inner_value, COUNT(*) AS n
  FROM main.goals t
  GROUP BY 1, 2, 3, 4
) SELECT 1`;

function mixRow(outer: string, inner: string, n: number, outerN: number, innerN: number, all: number) {
  return {
    outer_column: 'department',
    outer_value: outer,
    inner_column: 'category',
    inner_value: inner,
    goals: n,
    outer_goals: outerN,
    inner_goals: innerN,
    all_goals: all,
    share_in_outer: n / outerN,
    share_in_outer_elsewhere: (innerN - n) / (all - outerN),
    share_in_inner: n / innerN,
    share_in_inner_elsewhere: (outerN - n) / (all - innerN),
  };
}

describe('when one value dominates within another', () => {
  it('reports the stronger reading of the pair with both shares and a rate claim on the inner value', async () => {
    const step = queryStep(5, 'conversion: mix of each pair of department, category (main.goals)', MIX_SQL, [
      mixRow('Finance', 'Cost Reduction', 128, 213, 162, 500),
      mixRow('HR', 'Efficiency', 30, 101, 82, 500),
    ]);
    const found = (await insightsFor([step])).find((item) => /dominates/.test(item.name));
    // 79% of Cost Reduction goals are Finance's (against 25% elsewhere) reads stronger than 60% of Finance's goals being Cost Reduction
    expect(found?.name).toBe(
      'Finance dominates within Cost Reduction (category): 79% of Cost Reduction goals have department Finance, against 25% in the other category values',
    );
    expect(found?.claim).toMatchObject({
      metric: { kind: 'rate', table: 'main.goals', condition: { column: 'department', op: '=', value: 'Finance' } },
      segment: { column: 'category', value: 'Cost Reduction' },
      comparison: { kind: 'rest' },
      value: 0.7901,
      direction: 'higher',
    });
    expect(JSON.parse(String(found?.metrics?.recount_where))).toEqual({
      outer_column: 'department',
      inner_column: 'category',
      inner_value: 'Cost Reduction',
    });
  });

  it('ignores two columns that mirror each other', async () => {
    const step = queryStep(5, 'conversion: mix of each pair of department, category (main.goals)', MIX_SQL, [
      mixRow('Finance', 'Finance Team', 200, 200, 200, 500),
    ]);
    expect((await insightsFor([step])).filter((item) => /dominates|concentrated/.test(item.name))).toEqual([]);
  });
});

describe('when most rows of one value mention one term', () => {
  const sql =
    'WITH numbered AS (SELECT ROW_NUMBER() OVER () AS analyst_row_id, t.short_description AS analyst_text, t.* FROM main.tickets t) SELECT 1';
  const row = (value: string, term: string, n: number, size: number, share: number, elsewhere: number) => ({
    dimension: 'category',
    value,
    term,
    tickets_with_term: n,
    tickets: size,
    term_share: share,
    term_share_elsewhere: elsewhere,
    all_tickets: 500,
  });

  it('names the term, its share in the value and elsewhere, and recounts on both columns', async () => {
    const step = queryStep(6, 'conversion: terms of short description (main.tickets)', sql, [
      row('Hardware', 'printer', 236, 406, 0.58, 0.03),
      row('Hardware', 'paper', 50, 406, 0.12, 0.01),
      row('Network', 'network', 20, 22, 0.9, 0.01),
    ]);
    const found = (await insightsFor([step])).find((item) => /mention/.test(item.name));
    expect(found?.name).toBe(
      'Most Hardware tickets mention "printer" in short description: 58% of them, against 3.0% of the other category values',
    );
    expect(found?.metrics).toMatchObject({ segment_column: 'value', segment_value: 'Hardware', count_column: 'tickets_with_term' });
    expect(JSON.parse(String(found?.metrics?.recount_where))).toEqual({ dimension: 'category', term: 'printer' });
  });

  it('skips a term that only repeats the value name', async () => {
    const step = queryStep(6, 'conversion: terms of short description (main.tickets)', sql, [row('Travel', 'travel', 150, 160, 0.94, 0)]);
    expect((await insightsFor([step])).filter((item) => /mention|marks/.test(item.name))).toEqual([]);
  });
});

describe('when one value spikes for a few months and another value slows down steadily', () => {
  const spikeSql = 'WITH monthly AS (SELECT 1) SELECT dimension, segment_value FROM marked';
  it('reports the spike window and the measure inside it', async () => {
    const step = queryStep(7, 'conversion: months far above the median month per value of category (main.tickets)', spikeSql, [
      {
        dimension: 'category',
        value: 'Hardware',
        tickets: 177,
        median_monthly_rows: 9,
        spike_months: 3,
        spike_first_month: '2023-06',
        spike_last_month: '2023-08',
        spike_rows: 120,
        spike_months_avg_days_opened_to_closed: 30,
        other_months_avg_days_opened_to_closed: 8,
      },
    ]);
    const items = await insightsFor([step]);
    expect(items.map((item) => item.name)).toEqual(
      expect.arrayContaining([
        'Hardware: increased tickets from 2023-06 to 2023-08, 4.4× its median month (40 vs 9 per month)',
        'Hardware: average closing time (from opened to closed) increases during its spike months from 2023-06 to 2023-08 (30 days vs 8 days in its other months)',
      ]),
    );
  });

  it('says when the spike months are not consecutive', async () => {
    const step = queryStep(7, 'conversion: months far above the median month per value of category (main.tickets)', spikeSql, [
      {
        dimension: 'category',
        value: 'Hardware',
        tickets: 177,
        median_monthly_rows: 9,
        spike_months: 2,
        spike_first_month: '2023-02',
        spike_last_month: '2023-08',
        spike_rows: 60,
      },
    ]);
    expect((await insightsFor([step]))[0]?.name).toMatch(/increased tickets in 2 months between 2023-02 and 2023-08/);
  });

  it('reports a measure that grows for one value while the others stay level, and no trend when all move together', async () => {
    const row = (value: string, first: number, last: number, slope: number) => ({
      dimension: 'assigned_to',
      value,
      tickets: 100,
      edge_months: 3,
      first_months_rows: 8,
      last_months_rows: 8,
      first_months_avg_days_opened_to_closed: first,
      last_months_avg_days_opened_to_closed: last,
      monthly_change_avg_days_opened_to_closed: slope,
    });
    const trendSql = 'WITH monthly AS (SELECT 1) SELECT dimension FROM marked';
    const alone = queryStep(
      8,
      'conversion: rows per month in the first and last months per value of assigned to (main.tickets)',
      trendSql,
      [row('Fred', 3.6, 53, 5.2), row('Beth', 4.4, 4.3, 0), row('Luke', 4.8, 4.9, 0), row('Howard', 4, 5, 0.1)],
    );
    expect((await insightsFor([alone])).map((item) => item.name)).toContain(
      'Fred: average closing time (from opened to closed) increases over time, from 3.6 days to 53 days (15×), while the other assigned to values stay uniform (1.0×)',
    );
    const together = queryStep(
      8,
      'conversion: rows per month in the first and last months per value of assigned to (main.tickets)',
      trendSql,
      [row('Fred', 4, 12, 1), row('Beth', 4, 11, 1), row('Luke', 4, 13, 1)],
    );
    expect((await insightsFor([together])).filter((item) => /increases over time/.test(item.name))).toEqual([]);
  });
});

describe('when a monthly series steps up for good', () => {
  it('reports the change point with the level before and after', async () => {
    const counts = [17, 18, 16, 19, 17, 18, 17, 60, 62, 65, 61, 63, 64];
    const step = queryStep(
      9,
      'conversion: monthly tickets (main.tickets)',
      "SELECT date_trunc('month', t.opened_at) AS month, COUNT(*) AS tickets FROM main.tickets t GROUP BY 1",
      counts.map((tickets, index) => ({
        month: `2023-${String(index + 1).padStart(2, '0')}-01T00:00:00.000Z`.replace('2023-13', '2024-01'),
        tickets,
      })),
    );
    const step_ = (await insightsFor([step])).find((item) => /steps up/.test(item.name));
    expect(step_?.name).toMatch(/^Monthly tickets steps up from 2023-08: 17\.43 per month before, 62\.5 from then on \(3\.6×\)$/);
  });
});

describe('when a measure climbs across the brackets of a metric', () => {
  it('reports the climb from the lowest to the highest bracket', async () => {
    const step = queryStep(
      10,
      'conversion: durations across quartile brackets of amount (main.expenses)',
      `WITH bracketed AS (SELECT t.*, NTILE(4) OVER (ORDER BY CAST(t.amount AS DOUBLE PRECISION)) AS bracket_number FROM main.expenses t) SELECT t.bracket_number AS amount_bracket, COUNT(*) AS expenses, AVG((epoch(CAST(t.processed_at AS TIMESTAMP)) - epoch(CAST(t.opened_at AS TIMESTAMP))) / 86400.0) AS avg_days_opened_to_processed FROM bracketed t GROUP BY 1`,
      [
        { amount_bracket: 1, expenses: 125, min_amount: 100, max_amount: 999, avg_days_opened_to_processed: 2.1 },
        { amount_bracket: 2, expenses: 125, min_amount: 1000, max_amount: 2499, avg_days_opened_to_processed: 4 },
        { amount_bracket: 3, expenses: 125, min_amount: 2500, max_amount: 4999, avg_days_opened_to_processed: 6.5 },
        { amount_bracket: 4, expenses: 125, min_amount: 5000, max_amount: 9900, avg_days_opened_to_processed: 9.8 },
      ],
    );
    expect((await insightsFor([step])).map((item) => item.name)).toContain(
      'Higher amount brackets have a higher average processing time (from opened to processed): 9.8 days for amount 5,000 to 9,900 vs 2.1 days for amount 100 to 999 (4.7×)',
    );
  });
});

describe('when two measures move together in one group and not overall', () => {
  it('reports the group with its correlation next to the overall one', async () => {
    const sql = `SELECT CAST('(all rows)' AS VARCHAR) AS dimension, CAST('(all rows)' AS VARCHAR) AS "value", COUNT(*) AS assets, corr(CAST(t.cost AS DOUBLE PRECISION), (epoch(CAST(t.warranty_expiration AS TIMESTAMP)) - epoch(CAST(t.purchased_on AS TIMESTAMP))) / 86400.0) AS corr_cost_days_purchased_on_to_warranty_expiration
FROM main.assets t`;
    const step = queryStep(11, 'conversion: correlations (main.assets)', sql, [
      { dimension: '(all rows)', value: '(all rows)', assets: 500, corr_cost_days_purchased_on_to_warranty_expiration: 0.21 },
      { dimension: 'model_category', value: 'Computer', assets: 223, corr_cost_days_purchased_on_to_warranty_expiration: 0.91 },
      { dimension: 'model_category', value: 'Printer', assets: 44, corr_cost_days_purchased_on_to_warranty_expiration: 0.05 },
    ]);
    expect((await insightsFor([step])).map((item) => item.name)).toContain(
      'Computer: strong positive correlation between cost and the time from purchased on to warranty expiration (r = 0.91 over 223 assets, against r = 0.21 over all assets)',
    );
  });
});

describe('when one entity repeats the same row many times', () => {
  it('reports the repeated rows and who holds them', async () => {
    const sql = `WITH copies AS (SELECT COALESCE(CAST(t."user" AS VARCHAR), '(none)') AS segment_value, COUNT(*) OVER (PARTITION BY COALESCE(CAST(t."user" AS VARCHAR), '(none)'), t.amount, t.category) AS copies FROM main.expenses t) SELECT segment_value AS user_value, COUNT(*) AS expenses FROM copies GROUP BY 1`;
    const step = queryStep(12, 'conversion: repeated rows per user (main.expenses)', sql, [
      {
        user_value: 'Mamie',
        expenses: 112,
        repeated_expenses: 100,
        share_repeated_expenses: 0.89,
        all_repeated_expenses: 104,
        all_expenses: 500,
      },
      {
        user_value: 'Ofelia',
        expenses: 15,
        repeated_expenses: 4,
        share_repeated_expenses: 0.27,
        all_repeated_expenses: 104,
        all_expenses: 500,
      },
    ]);
    const found = (await insightsFor([step])).find((item) => /repeat another row/.test(item.name));
    expect(found?.name).toBe('104 expenses (21%) repeat another row identically, mostly from a single user: Mamie (100)');
    expect(found?.description).toContain('share every value of user, amount, category');
    expect(found?.metrics).toMatchObject({ segment_value: 'Mamie', count_column: 'repeated_expenses' });
  });
});

describe('when the team names a value in its goal', () => {
  it('ranks findings about that value first among comparable ones', async () => {
    const step = queryStep(4, 'conversion: durations by department (main.goals)', BY_CATEGORY.replace(/tickets/g, 'goals'), [
      { category: 'Finance', goals: 125, avg_days_opened_to_closed: 100, sd_days_opened_to_closed: 40, share_of_goals: 0.25 },
      { category: 'HR', goals: 125, avg_days_opened_to_closed: 150, sd_days_opened_to_closed: 40, share_of_goals: 0.25 },
      { category: 'IT', goals: 125, avg_days_opened_to_closed: 150, sd_days_opened_to_closed: 40, share_of_goals: 0.25 },
      { category: 'Sales', goals: 125, avg_days_opened_to_closed: 250, sd_days_opened_to_closed: 40, share_of_goals: 0.25 },
    ]);
    const withoutGoal = await insightsFor([step]);
    const withGoal = await insightsFor([step], 'Find why goals in the Finance department finish sooner');
    expect(withoutGoal[0]?.name).toMatch(/^Sales:/);
    expect(withGoal[0]?.name).toMatch(/^Finance:/);
  });
});
