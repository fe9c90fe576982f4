/** Words from a claim: numbers written the way a person writes them, no ratio against (nearly) nothing, and each direction in its own words. */
import { describe, expect, it } from 'vitest';
import { formatMetricValue, formatNumber, formatPercent, renderClaim, valueName } from '../../../../src/discovery/claims/claim-text.js';
import { type Claim, type ClaimInput, claimSchema } from '../../../../src/domain/index.js';

const claim = (input: Partial<ClaimInput> & Pick<ClaimInput, 'value' | 'comparison_value' | 'direction'>): Claim =>
  claimSchema.parse({
    kind: 'difference',
    metric: {
      kind: 'rate',
      table: 'main.orders',
      condition: { column: 'status', op: '=', value: 'cancelled' },
      label: 'cancellation rate',
    },
    segment: { column: 'shipping_region', value: 'Southeast', label: 'shipping region' },
    comparison: { kind: 'rest' },
    noun: 'orders',
    ...input,
  });

describe('numbers', () => {
  it.each([
    [1234, '1,234'],
    [12_345, '12,345'],
    [1_234_567.8, '1,234,568'],
    [123.4, '123'],
    [12.345, '12.3'],
    [1.234, '1.23'],
    [0.1234, '0.12'],
    [-0.00123, '-0.0012'],
    [0, '0'],
  ])('%d is written %s', (value, text) => {
    expect(formatNumber(value)).toBe(text);
  });

  it('writes a whole-number segment value as a name (store 1001, year 1986) and a count with a thousands separator', () => {
    const store = renderClaim(
      claim({
        value: 0.2,
        comparison_value: 0.1,
        direction: 'higher',
        segment: { column: 'store_id', value: 1001, label: 'store' },
        n: { segment: 8_701, comparison: 3_132 },
      }),
    );
    expect(store.title).toMatch(/^Orders whose store is 1001 /);
    expect(store.description).toMatch(/^Over 8,701 orders whose store is 1001,/);
    expect(store.description).toMatch(/the 3,132 other orders/);
  });

  it.each([
    [0.305, '30.5%'],
    [0.99961, '100%'],
    [0.0004, '0.04%'],
    [1e-12, '0%'],
    [-0.932, '-93.2%'],
  ])('the share %d is written %s', (share, text) => {
    expect(formatPercent(share)).toBe(text);
  });

  it('writes rates as percentages, money with its symbol, durations and units after the number, and years as years', () => {
    expect(formatMetricValue(claim({ value: 0.1448, comparison_value: 0.0349, direction: 'higher' }), 0.1448)).toBe('14.5%');
    const money = claim({
      metric: { kind: 'mean', table: 'main.orders', column: 'total', label: 'order total (USD)' },
      value: 2,
      comparison_value: 1,
      direction: 'higher',
    });
    expect(formatMetricValue(money, 1_234_567)).toBe('$1.2M');
    expect(formatMetricValue(money, 3.2)).toBe('$3.20');
    const euros = claim({
      metric: { kind: 'sum', table: 'main.orders', column: 'total', label: 'revenue (EUR)' },
      value: 2,
      comparison_value: 1,
      direction: 'higher',
    });
    expect(formatMetricValue(euros, 2_500_000_000)).toBe('€2.5B');
    const duration = claim({
      metric: { kind: 'duration_mean', table: 'main.orders', start_column: 'a', end_column: 'b', unit: 'hours', label: 'time to ship' },
      value: 2,
      comparison_value: 1,
      direction: 'higher',
    });
    expect(formatMetricValue(duration, 33.25)).toBe('33.3 hours');
    const grams = claim({
      metric: { kind: 'mean', table: 'main.births', column: 'w', label: 'birth weight (g)' },
      value: 2,
      comparison_value: 1,
      direction: 'higher',
    });
    expect(formatMetricValue(grams, 2772.3)).toBe('2,772 g');
    const year = claim({
      metric: { kind: 'mean', table: 'main.cars', column: 'y', label: 'model year' },
      value: 2,
      comparison_value: 1,
      direction: 'higher',
    });
    expect(formatMetricValue(year, 1986)).toBe('1986');
  });

  it('names calendar positions and periods', () => {
    expect(valueName({ grain: 'month_of_year' }, 9)).toBe('September');
    expect(valueName({ grain: 'day_of_week' }, 7)).toBe('Sunday');
    expect(valueName({ grain: 'hour_of_day' }, 20)).toBe('20:00–20:59');
    expect(valueName({ grain: 'month' }, '2024-09-01')).toBe('September 2024');
    expect(valueName({ grain: undefined }, true)).toBe('yes');
  });
});

describe('a difference', () => {
  it('states both numbers, the ratio and the evidence, with the rows counted into the comparison', () => {
    const text = renderClaim(
      claim({
        value: 0.1448,
        comparison_value: 0.0349,
        direction: 'higher',
        n: { segment: 2479, comparison: 9354 },
        test: { name: 'two_proportion_z', statistic: 20.84, p_value: 1e-30 },
      }),
    );
    expect(text.title).toBe('Orders whose shipping region is Southeast have a higher cancellation rate: 14.5% vs 3.5% (4.15×)');
    expect(text.description).toBe(
      'Over 2,479 orders whose shipping region is Southeast, the cancellation rate is 14.5%, against 3.5% for the 9,354 other orders (4.15×; two-proportion z = 20.8, p < 0.001).',
    );
  });

  it('counts the rows into "all" and into another group too', () => {
    const all = renderClaim(
      claim({ comparison: { kind: 'all' }, value: 0.2, comparison_value: 0.1, direction: 'higher', n: { segment: 10, comparison: 100 } }),
    );
    expect(all.description).toContain('against 10.0% for all 100 orders');
    const group = renderClaim(
      claim({
        comparison: { kind: 'group', group: { column: 'shipping_region', value: 'West', label: 'shipping region' } },
        value: 0.2,
        comparison_value: 0.1,
        direction: 'higher',
        n: { segment: 10, comparison: 100 },
      }),
    );
    expect(group.description).toContain('against 10.0% for 100 orders whose shipping region is West');
  });

  it('states no ratio against zero or against less than 1% of the other value', () => {
    expect(renderClaim(claim({ value: 0.3, comparison_value: 0, direction: 'higher' })).title).toBe(
      'Orders whose shipping region is Southeast have a higher cancellation rate: 30.0% vs 0%',
    );
    const tiny = renderClaim(claim({ value: 0.5, comparison_value: 0.004, direction: 'higher' }));
    expect(tiny.title).not.toMatch(/×/);
    expect(tiny.description).not.toMatch(/×/);
    expect(renderClaim(claim({ value: 0, comparison_value: 0.2, direction: 'lower' })).title).not.toMatch(/×/);
  });

  it('mirrors the direction: a lower segment says lower, and its ratio the other way round', () => {
    const lower = renderClaim(claim({ value: 0.02, comparison_value: 0.06, direction: 'lower' }));
    expect(lower.title).toBe('Orders whose shipping region is Southeast have a lower cancellation rate: 2.0% vs 6.0% (3.00× lower)');
    const higher = renderClaim(claim({ value: 0.06, comparison_value: 0.02, direction: 'higher' }));
    expect(higher.title).toBe('Orders whose shipping region is Southeast have a higher cancellation rate: 6.0% vs 2.0% (3×)');
  });

  it('names yes/no segments by their column, ranges and hours of the day in words', () => {
    expect(
      renderClaim(
        claim({
          segment: { column: 'over_time', value: true, label: 'overtime' },
          value: 0.3,
          comparison_value: 0.1,
          direction: 'higher',
          noun: 'employees',
        }),
      ).title,
    ).toMatch(/^Employees with overtime have a higher/);
    expect(
      renderClaim(
        claim({ segment: { column: 'level', from: 11, to: 14, label: 'level' }, value: 0.3, comparison_value: 0.1, direction: 'higher' }),
      ).title,
    ).toMatch(/^Orders with level 11 to 13 have/);
    expect(
      renderClaim(
        claim({
          segment: { column: 'departed_at', grain: 'hour_of_day', from: 20, to: 24, label: 'departure time' },
          value: 0.3,
          comparison_value: 0.1,
          direction: 'higher',
        }),
      ).title,
    ).toMatch(/^Orders with departure time between 20:00 and 23:59 \(the evening\) have/);
  });
});

describe('a share', () => {
  const september = (value: number, direction: 'higher' | 'lower', n?: number) =>
    claim({
      kind: 'share',
      metric: { kind: 'share', table: 'main.orders' },
      segment: { column: 'ordered_at', grain: 'month_of_year', value: 9, label: 'month' },
      comparison: { kind: 'even', groups: 12 },
      value,
      comparison_value: 1 / 12,
      direction,
      ...(n ? { n: { segment: n } } : {}),
    });

  it('says the segment holds the most against an even split, with the lift', () => {
    const text = renderClaim(september(0.1274, 'higher', 1508));
    expect(text.title).toBe('September has the most orders: 12.7% of all (1.53× an even split)');
    expect(text.description).toBe(
      'Orders in September number 1,508, 12.7% of all orders, against 8.3% if the 12 month values shared them evenly.',
    );
  });

  it('says fewer, never "the most", for a share below an even split, and leaves an unknown count out', () => {
    const text = renderClaim(september(0.0267, 'lower'));
    expect(text.title).toBe('September has fewer orders than an even split: 2.7% of all, against 8.3%');
    expect(text.description).toBe('Orders in September are 2.7% of all orders, against 8.3% if the 12 month values shared them evenly.');
  });

  it('names the first month by its name: a 1 that is a calendar position is not a yes', () => {
    const january = claim({
      kind: 'share',
      metric: { kind: 'share', table: 'main.players' },
      segment: { column: 'installed_at', grain: 'month_of_year', value: 1 },
      comparison: { kind: 'even', groups: 12 },
      value: 0.207,
      comparison_value: 1 / 12,
      direction: 'higher',
      noun: 'players',
    });
    expect(renderClaim(january).title).toBe('January has the most players: 20.7% of all (2.48× an even split)');
  });

  it('states a share of a total against the share of the rows', () => {
    const text = renderClaim(
      claim({
        kind: 'share',
        metric: { kind: 'sum', table: 'main.purchases', column: 'price', label: 'revenue (USD)' },
        segment: { column: 'product', value: 'Mega Booster Pack', label: 'product' },
        value: 0.68,
        comparison_value: 0.469,
        direction: 'higher',
        noun: 'purchases',
      }),
    );
    expect(text.title).toBe('Mega Booster Pack accounts for 68.0% of all revenue, from 46.9% of the purchases');
  });
});

describe('a trend', () => {
  const trend = (input: Partial<ClaimInput>) =>
    claim({
      kind: 'trend',
      segment: undefined,
      comparison: undefined,
      metric: { kind: 'count', table: 'main.orders' },
      series: { column: 'ordered_at', grain: 'month', from: '2024-01-01', to: '2024-10-01', label: 'order month' },
      value: 1385.5,
      comparison_value: 343,
      direction: 'higher',
      ...input,
    });

  it('calls a rise steady only when the fit says so, with the fit stated', () => {
    const steady = renderClaim(
      trend({ fit: { slope: 142, r2: 0.918, periods: 9, first_period: '2024-01-01', last_period: '2024-09-01' } }),
    );
    expect(steady.title).toBe('Number of orders per month rose from 343 to 1,386 between January 2024 and September 2024 (+304%)');
    expect(steady.description).toContain('a steady, close to linear rise (r² = 0.92 over 9 periods)');
    const bumpy = renderClaim(trend({ fit: { slope: 142, r2: 0.41, periods: 9, first_period: '2024-01-01', last_period: '2024-09-01' } }));
    expect(bumpy.description).toContain('a rise with ups and downs around the fitted line (r² = 0.41 over 9 periods)');
    expect(bumpy.description).not.toMatch(/steady|linear rise/);
  });

  it('names the periods from the series when the claim carries no fit', () => {
    expect(renderClaim(trend({})).title).toBe(
      'Number of orders per month rose from 343 to 1,386 between January 2024 and September 2024 (+304%)',
    );
    const open = renderClaim(trend({ series: { column: 'ordered_at', grain: 'month' } }));
    expect(open.title).toBe('Number of orders per month rose from 343 to 1,386 (+304%)');
    expect(open.description).not.toMatch(/ at [ .]/);
  });

  it('mirrors a fall, and states no change against nothing', () => {
    expect(renderClaim(trend({ value: 343, comparison_value: 1385.5, direction: 'lower' })).title).toMatch(
      / fell from 1,386 to 343 .*\(-75\.2%\)$/,
    );
    expect(renderClaim(trend({ value: 100, comparison_value: 0 })).title).not.toMatch(/%\)/);
  });
});

describe('a shift and a correlation', () => {
  it('states a window against the other periods, and against a baseline as a change', () => {
    const window = renderClaim(
      claim({
        kind: 'shift',
        segment: undefined,
        comparison: undefined,
        metric: { kind: 'count', table: 'main.users' },
        series: { column: 'signed_up_at', grain: 'week' },
        window: { from: '2024-03-11', to: '2024-03-18' },
        value: 1154,
        comparison_value: 345.84,
        direction: 'higher',
        noun: 'users',
      }),
    );
    expect(window.title).toBe(
      'Number of users per week spiked to 1,154 in the week of 2024-03-11, against 346 in the other periods (3.34×)',
    );
    const before = renderClaim(
      claim({
        kind: 'shift',
        segment: undefined,
        comparison: undefined,
        metric: { kind: 'sum', table: 'main.diseases', column: 'cases', label: 'measles cases' },
        series: { column: 'year' },
        window: { from: 1970, to: 1980 },
        baseline: { from: 1953, to: 1963 },
        value: 34_659,
        comparison_value: 511_984,
        direction: 'lower',
      }),
    );
    expect(before.title).toBe('Total measles cases fell from 511,984 (1953–1962) to 34,659 (1970–1979), -93.2%');
  });

  it('words a correlation by its strength and sign', () => {
    const correlation = (value: number) =>
      renderClaim(
        claim({
          kind: 'correlation',
          segment: undefined,
          comparison: undefined,
          metric: { kind: 'mean', table: 'main.storms', column: 'wind', label: 'wind (knots)' },
          x: { column: 'pressure', label: 'central pressure' },
          value,
          comparison_value: 0,
          direction: value > 0 ? 'higher' : 'lower',
        }),
      ).title;
    expect(correlation(-0.944)).toBe('Central pressure and wind are strongly negatively correlated (r = -0.94)');
    expect(correlation(0.5)).toBe('Central pressure and wind are moderately positively correlated (r = 0.50)');
    expect(correlation(0.2)).toBe('Central pressure and wind are weakly positively correlated (r = 0.20)');
  });
});

describe('the drivers of a change and record-level outliers', () => {
  it('states the change of the whole, the driver and its part of it', () => {
    const text = renderClaim(
      claim({
        kind: 'contribution',
        metric: { kind: 'sum', table: 'main.orders', column: 'total', label: 'revenue (USD)' },
        segment: { column: 'region', value: 'West', label: 'region' },
        series: { column: 'ordered_at', grain: 'quarter' },
        baseline: { from: '2024-04-01', to: '2024-07-01' },
        window: { from: '2024-07-01', to: '2024-10-01' },
        value: 81_600,
        comparison_value: 120_000,
        direction: 'higher',
        test: { name: 'share_change_z', statistic: 5.1, p_value: 1e-7 },
      }),
    );
    expect(text.title).toBe(
      'Total revenue per quarter rose by $120,000 from 2024-Q2 to 2024-Q3; orders whose region is West account for 68.0% of the rise ($81,600)',
    );
    expect(text.description).toContain('z of the share = 5.10, p < 0.001');
  });

  it('states a fall as a fall, for an average without "per period"', () => {
    const text = renderClaim(
      claim({
        kind: 'contribution',
        metric: {
          kind: 'rate',
          table: 'main.orders',
          condition: { column: 'status', op: '=', value: 'cancelled' },
          label: 'cancellation rate',
        },
        series: { column: 'year' },
        baseline: { from: 2022, to: 2023 },
        window: { from: 2023, to: 2024 },
        value: -0.02,
        comparison_value: -0.025,
        direction: 'lower',
      }),
    );
    expect(text.title).toBe(
      'Cancellation rate fell by 2.5% from 2022 to 2023; orders whose shipping region is Southeast account for 80.0% of the fall (2.0%)',
    );
  });

  it('states how many rows are extreme, how far, and what they weigh', () => {
    const high = renderClaim(
      claim({
        kind: 'outlier',
        metric: { kind: 'mean', table: 'main.orders', column: 'total', label: 'order total (USD)' },
        segment: { column: 'total', from: 20_000 },
        value: 23_400,
        comparison_value: 480,
        share_of_total: 0.09,
        direction: 'higher',
        n: { segment: 3, comparison: 4_997 },
        test: { name: 'poisson_tail', statistic: 1e-9, p_value: 1e-12 },
      }),
    );
    expect(high.title).toBe(
      '3 orders have an order total of $20,000 or more, far above the rest: $23,400 on average, 48.8× the median of the others ($480); they hold 9.0% of the total order total',
    );
    expect(high.description).toContain('3 of 5,000 orders');
    expect(high.description).toContain('fewer than one in a million orders expected beyond it');
    const low = renderClaim(
      claim({
        kind: 'outlier',
        metric: { kind: 'mean', table: 'main.flights', column: 'speed', label: 'speed (knots)' },
        segment: { column: 'speed', to: 20 },
        value: 4,
        comparison_value: 410,
        direction: 'lower',
        n: { segment: 1, comparison: 900 },
      }),
    );
    expect(low.title).toBe('1 order has a speed under 20 knots, far below the rest: 4 knots, against a median of 410 knots for the others');
  });
});
