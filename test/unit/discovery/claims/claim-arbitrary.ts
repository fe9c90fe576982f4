/** fast-check claims of every kind, in the schema and coherent (the direction follows the values), with the words a pack would give them. */
import fc from 'fast-check';
import { type Claim, claimSchema } from '../../../../src/domain/index.js';

const NOUNS = ['orders', 'tickets', 'employees', 'flights', 'sessions'];
const SEGMENT_VALUES = ['Southeast', 'Network', 'mobile', 'Sales Representative', 'paypal', 'Drama', '3.4.0', 'Y', '1'];

const metricFor = (kind: string) =>
  ({
    rate: fc.record({
      kind: fc.constant('rate'),
      table: fc.constant('main.t'),
      condition: fc.record({ column: fc.constant('status'), op: fc.constant('='), value: fc.constantFrom('cancelled', 'late', 'Yes') }),
      label: fc.constantFrom('cancellation rate', 'share late', 'attrition rate'),
    }),
    mean: fc.record({
      kind: fc.constantFrom('mean', 'median'),
      table: fc.constant('main.t'),
      column: fc.constantFrom('total_amount', 'pageviews', 'caption_length'),
      label: fc.constantFrom('order total (USD)', 'pageviews', 'caption length (characters)', 'monthly income (EUR)'),
    }),
    duration: fc.record({
      kind: fc.constantFrom('duration_mean', 'duration_median'),
      table: fc.constant('main.t'),
      start_column: fc.constant('opened_at'),
      end_column: fc.constant('closed_at'),
      unit: fc.constantFrom('minutes', 'hours', 'days'),
      label: fc.constantFrom('time to resolve', 'time to delivery'),
    }),
    sum: fc.record({
      kind: fc.constant('sum'),
      table: fc.constant('main.t'),
      column: fc.constant('amount'),
      label: fc.constantFrom('revenue (USD)', 'cases'),
    }),
    count: fc.record({ kind: fc.constant('count'), table: fc.constant('main.t') }),
    share: fc.record({ kind: fc.constant('share'), table: fc.constant('main.t') }),
  })[kind] as fc.Arbitrary<Record<string, unknown>>;

const segment = fc.oneof(
  fc.record({
    column: fc.constantFrom('region', 'category'),
    value: fc.constantFrom(...SEGMENT_VALUES),
    label: fc.constantFrom('region', 'category'),
  }),
  fc.record({ column: fc.constant('ordered_at'), grain: fc.constant('month_of_year'), value: fc.integer({ min: 1, max: 12 }) }),
  fc.record({ column: fc.constant('ordered_at'), grain: fc.constant('day_of_week'), value: fc.integer({ min: 1, max: 7 }) }),
  fc
    .integer({ min: 0, max: 20 })
    .map((from) => ({ column: 'departed_at', grain: 'hour_of_day', from, to: from + 3, label: 'departure time' })),
  fc.integer({ min: 1, max: 30 }).map((from) => ({ column: 'level', from, to: from + 3, label: 'level' })),
  fc.record({ column: fc.constant('over_time'), value: fc.boolean(), label: fc.constant('overtime') }),
  fc.record({ column: fc.constant('region'), values: fc.constantFrom(['Southeast', 'West'], ['North']), label: fc.constant('region') }),
  fc.record({ column: fc.constant('closed_at'), missing: fc.constant(true), label: fc.constant('closing date') }),
  fc.record({
    column: fc.constant('ordered_at'),
    grain: fc.constantFrom('month', 'quarter'),
    value: fc.constantFrom('2024-01-01', '2024-07-01'),
  }),
);

/** Two distinct values on the scale of the metric, and the direction they make. */
function values(scale: 'share' | 'amount' | 'count') {
  const one =
    scale === 'share'
      ? fc.double({ min: 0.001, max: 0.999, noNaN: true })
      : scale === 'count'
        ? fc.integer({ min: 1, max: 2_000_000 })
        : fc.double({ min: 0.01, max: 5e6, noNaN: true });
  return fc
    .tuple(one, one)
    .filter(([a, b]) => Math.abs(a - b) > 1e-6 * Math.max(a, b))
    .map(([value, comparison]) => ({ value, comparison_value: comparison, direction: value > comparison ? 'higher' : 'lower' }));
}

const support = fc.option(
  fc.record({ segment: fc.integer({ min: 10, max: 100_000 }), comparison: fc.integer({ min: 10, max: 100_000 }) }),
  { nil: undefined },
);
const test = (name: string) =>
  fc.option(
    fc.record({
      name: fc.constant(name),
      statistic: fc.double({ min: -80, max: 80, noNaN: true }),
      p_value: fc.double({ min: 1e-300, max: 0.05, noNaN: true }),
    }),
    {
      nil: undefined,
    },
  );
const noun = fc.constantFrom(...NOUNS);

const difference = fc.constantFrom('rate', 'mean', 'duration', 'sum', 'count', 'share').chain((kind) =>
  fc.record({
    kind: fc.constant('difference'),
    metric: metricFor(kind),
    segment,
    comparison: fc.constantFrom({ kind: 'rest' }, { kind: 'all' }, { kind: 'group', group: { column: 'region', value: 'West' } }),
    numbers: values(kind === 'rate' || kind === 'share' ? 'share' : kind === 'count' ? 'count' : 'amount'),
    n: support,
    test: test(kind === 'rate' ? 'two_proportion_z' : 'welch_t'),
    noun,
  }),
);

const share = fc.oneof(
  fc
    .record({
      kind: fc.constant('share'),
      metric: metricFor('share'),
      segment,
      groups: fc.integer({ min: 2, max: 300 }),
      share: fc.double({ min: 0.001, max: 0.999, noNaN: true }),
      n: support,
      test: test('binomial'),
      noun,
    })
    .map(({ groups, share: value, ...rest }) => ({
      ...rest,
      comparison: { kind: 'even', groups },
      numbers: { value, comparison_value: 1 / groups, direction: value > 1 / groups ? 'higher' : 'lower' },
    }))
    .filter((claim) => Math.abs(claim.numbers.value - claim.numbers.comparison_value) > 1e-6),
  fc.record({
    kind: fc.constant('share'),
    metric: metricFor('sum'),
    segment,
    comparison: fc.constant({ kind: 'rest' }),
    numbers: values('share').filter((numbers) => numbers.direction === 'higher'),
    n: support,
    test: test('welch_t'),
    noun,
  }),
);

const MONTHS = ['2023-01-01', '2023-04-01', '2023-07-01', '2024-01-01', '2024-06-01'];

const trend = fc.constantFrom('count', 'mean', 'sum', 'rate').chain((kind) =>
  fc
    .record({
      metric: metricFor(kind),
      first: fc.integer({ min: 0, max: 2 }),
      periods: fc.integer({ min: 6, max: 48 }),
      r2: fc.double({ min: 0, max: 1, noNaN: true }),
      numbers: values(kind === 'rate' ? 'share' : kind === 'count' ? 'count' : 'amount'),
      test: test('ols_slope'),
      noun,
      segment: fc.option(segment, { nil: undefined }),
      withFit: fc.boolean(),
    })
    .map(({ first, periods, r2, numbers, withFit, ...rest }) => {
      const start = MONTHS[first] as string;
      const last = new Date(start);
      last.setUTCMonth(last.getUTCMonth() + periods - 1);
      const end = last.toISOString().slice(0, 10);
      const slope = (numbers.value - numbers.comparison_value) / periods;
      return {
        kind: 'trend',
        ...rest,
        series: { column: 'ordered_at', grain: 'month', label: 'order month' },
        numbers,
        ...(withFit
          ? { fit: { slope, r2, periods, first_period: start, last_period: end } }
          : { series: { column: 'ordered_at', grain: 'month', from: start, to: end } }),
      };
    }),
);

const shift = fc.constantFrom('count', 'mean', 'sum').chain((kind) =>
  fc.record({
    kind: fc.constant('shift'),
    metric: metricFor(kind),
    series: fc.constant({ column: 'signed_up_at', grain: 'week', label: 'sign-up week' }),
    window: fc.constantFrom({ from: '2024-03-11', to: '2024-03-18' }, { from: '2024-03-04', to: '2024-03-25' }),
    baseline: fc.option(fc.constant({ from: '2024-01-01', to: '2024-03-04' }), { nil: undefined }),
    numbers: values(kind === 'count' ? 'count' : 'amount'),
    n: fc.option(fc.record({ segment: fc.integer({ min: 1, max: 10 }), comparison: fc.integer({ min: 3, max: 50 }) }), { nil: undefined }),
    test: test('welch_t'),
    noun,
  }),
);

const correlation = fc
  .record({
    kind: fc.constant('correlation'),
    metric: fc.record({
      kind: fc.constant('mean'),
      table: fc.constant('main.t'),
      column: fc.constant('wind_kt'),
      label: fc.constantFrom('wind (knots)', 'sale price'),
    }),
    x: fc.record({ column: fc.constant('pressure_mb'), label: fc.constantFrom('central pressure', 'living area') }),
    r: fc.double({ min: -0.999, max: 0.999, noNaN: true }).filter((r) => Math.abs(r) > 0.01),
    n: support,
    test: test('pearson_t'),
    noun,
  })
  .map(({ r, ...rest }) => ({ ...rest, numbers: { value: r, comparison_value: 0, direction: r > 0 ? 'higher' : 'lower' } }));

const contribution = fc.constantFrom('count', 'sum', 'rate', 'mean').chain((kind) =>
  fc
    .record({
      metric: metricFor(kind).map((metric) => (metric.kind === 'median' ? { ...metric, kind: 'mean' } : metric)),
      segment: fc.record({
        column: fc.constantFrom('region', 'category'),
        value: fc.constantFrom(...SEGMENT_VALUES),
        label: fc.constantFrom('region', 'category'),
      }),
      windows: fc.constantFrom(
        {
          series: { column: 'ordered_at', grain: 'month', label: 'order month' },
          baseline: { from: '2024-05-01', to: '2024-06-01' },
          window: { from: '2024-06-01', to: '2024-07-01' },
        },
        {
          series: { column: 'ordered_at', grain: 'quarter' },
          baseline: { from: '2024-04-01', to: '2024-07-01' },
          window: { from: '2024-07-01', to: '2024-10-01' },
        },
        { series: { column: 'year', label: 'year' }, baseline: { from: 2022, to: 2023 }, window: { from: 2023, to: 2024 } },
      ),
      change:
        kind === 'rate'
          ? fc.double({ min: 0.001, max: 0.5, noNaN: true })
          : kind === 'count'
            ? fc.integer({ min: 1, max: 100_000 })
            : fc.double({ min: 0.01, max: 5e6, noNaN: true }),
      share: fc.double({ min: 0.26, max: 1.2, noNaN: true }),
      fall: fc.boolean(),
      n: support,
      test: test('share_change_z'),
      noun,
    })
    .map(({ windows, change, share, fall, ...rest }) => {
      const sign = fall ? -1 : 1;
      const whole = kind === 'count' ? sign * change : sign * change;
      return {
        kind: 'contribution',
        ...rest,
        ...windows,
        comparison: { kind: 'rest' },
        numbers: { value: whole * share, comparison_value: whole, direction: fall ? 'lower' : 'higher' },
      };
    }),
);

const outlier = fc
  .record({
    label: fc.constantFrom('order total (USD)', 'amount', 'price', 'delay (minutes)', 'items'),
    high: fc.boolean(),
    median: fc.double({ min: 1, max: 1_000, noNaN: true }),
    times: fc.double({ min: 5, max: 500, noNaN: true }),
    count: fc.integer({ min: 1, max: 50 }),
    rest: fc.integer({ min: 30, max: 1_000_000 }),
    share: fc.option(fc.double({ min: 0, max: 0.9, noNaN: true }), { nil: undefined }),
    test: test('poisson_tail'),
    noun,
  })
  .map(({ label, high, median, times, count, rest, share, ...others }) => {
    const mean = high ? median * times : median / times;
    const threshold = high ? Number((mean * 0.8).toPrecision(2)) : Number((mean * 1.25).toPrecision(2));
    return {
      kind: 'outlier',
      ...others,
      metric: { kind: 'mean', table: 'main.t', column: 'amount', label },
      segment: { column: 'amount', ...(high ? { from: threshold } : { to: threshold }), label },
      comparison: { kind: 'rest' },
      n: { segment: count, comparison: rest },
      ...(share !== undefined ? { share_of_total: share } : {}),
      numbers: { value: mean, comparison_value: median, direction: high ? 'higher' : 'lower' },
    };
  });

/** A claim in the schema, of any kind. */
export const claimArbitrary: fc.Arbitrary<Claim> = fc
  .oneof(difference, share, trend, shift, correlation, contribution, outlier)
  .map(({ numbers, ...claim }) => {
    const defined = Object.fromEntries(Object.entries(claim).filter(([, value]) => value !== undefined));
    return claimSchema.parse({ ...defined, ...numbers });
  });
