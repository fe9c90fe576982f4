import { describe, expect, it } from 'vitest';
import { mirrors, preferredSide, stanceOf, withoutMirrors } from '../../../../src/discovery/claims/stance.js';
import { severityOfFinding } from '../../../../src/discovery/claims/severity.js';
import { type Claim, claimSchema } from '../../../../src/domain/index.js';

function abandonment(value: string, rate: number, rest: number, rows: number, total = 21_916, better?: 'higher' | 'lower'): Claim {
  return claimSchema.parse({
    kind: 'difference',
    noun: 'sessions',
    metric: {
      kind: 'rate',
      table: 'main.sessions',
      condition: { column: 'checkout_abandonment', op: '=', value: false },
      label: 'checkout abandonment rate',
      ...(better ? { better } : {}),
    },
    segment: { column: 'device_type', value, label: 'device' },
    comparison: { kind: 'rest' },
    value: rate,
    comparison_value: rest,
    direction: rate > rest ? 'higher' : 'lower',
    test: { name: 'two_proportion_z', statistic: 40, p_value: 1e-12 },
    n: { segment: rows, comparison: total - rows },
  });
}

const desktopLess = abandonment('desktop', 0.228, 0.613, 8_701, 21_916, 'lower');
const mobileMore = abandonment('mobile', 0.666, 0.27, 10_520, 21_916, 'lower');

describe('which side of a fact a claim states', () => {
  it('calls a segment on the worse side of a measure the pack ranks a problem, on the better side a strength', () => {
    expect(stanceOf(mobileMore)).toBe('problem');
    expect(stanceOf(desktopLess)).toBe('strength');
  });

  it('calls neither when the pack does not say which direction is better', () => {
    expect(stanceOf(abandonment('mobile', 0.666, 0.27, 10_520))).toBe('neutral');
  });
});

describe('when two claims state one fact from both sides', () => {
  it('sees desktop-lower and mobile-higher on the same rows as one fact when the two hold most of the rows', () => {
    expect(mirrors(desktopLess, mobileMore)).toBe(true);
  });

  it('sees the two sides of a two-valued column as one fact (Android lower, iOS higher)', () => {
    const android = abandonment('android', 0.3, 0.5, 9_000, 20_000);
    const ios = abandonment('ios', 0.5, 0.3, 11_000, 20_000);
    expect(mirrors(android, ios)).toBe(true);
  });

  it('keeps two segments apart when much of the rest is neither of them', () => {
    expect(mirrors(abandonment('desktop', 0.2, 0.6, 5_000), abandonment('mobile', 0.7, 0.3, 6_000))).toBe(false);
  });

  it('keeps two segments apart when they point the same way, or are measured on other rows', () => {
    expect(mirrors(desktopLess, abandonment('mobile', 0.2, 0.6, 10_520))).toBe(false);
    expect(mirrors(desktopLess, abandonment('mobile', 0.666, 0.27, 10_520, 36_075))).toBe(false);
  });

  it('tells it from the problem’s side when the pack says which direction is better', () => {
    expect(preferredSide({ claim: desktopLess }, { claim: mobileMore }).claim).toBe(mobileMore);
  });

  it('tells it from the larger segment when no direction is known to be better', () => {
    const desktop = abandonment('desktop', 0.228, 0.613, 8_701);
    const mobile = abandonment('mobile', 0.666, 0.27, 10_520);
    expect(preferredSide({ claim: mobile }, { claim: desktop }).claim).toBe(mobile);
    expect(preferredSide({ claim: desktop }, { claim: mobile }).claim).toBe(mobile);
  });

  it('drops the mirror from a list, keeps the first one’s place, and says which one stands for it', () => {
    const other = abandonment('tablet', 0.4, 0.45, 2_695, 21_916, 'lower');
    const { kept, replacedBy } = withoutMirrors([
      { id: 'conversion-1', claim: desktopLess },
      { id: 'conversion-2', claim: other },
      { id: 'conversion-3', claim: mobileMore },
    ]);
    expect(kept.map((item) => item.id)).toEqual(['conversion-3', 'conversion-2']);
    expect(replacedBy).toEqual(new Map([['conversion-1', 'conversion-3']]));
  });
});

describe('the severity of a strength', () => {
  it('stays below critical, so it never outranks the problem it mirrors', () => {
    const finding = { strength: 0.95, coverage: 0.4, relevance: 0.9 };
    expect(severityOfFinding({ ...finding, claim: mobileMore })).toBe('critical');
    expect(severityOfFinding({ ...finding, claim: desktopLess })).toBe('high');
  });
});
