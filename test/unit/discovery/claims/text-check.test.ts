/**
 * Text against its claim: whatever the engine renders from a claim agrees with it (a property over
 * generated claims of every kind), and a model's text that reverses the direction, names another number,
 * another segment or another measure is caught.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatMetricValue, renderClaim } from '../../../../src/discovery/claims/claim-text.js';
import { textDisagreements } from '../../../../src/discovery/claims/text-check.js';
import { type Claim, claimSchema } from '../../../../src/domain/index.js';
import { claimArbitrary } from './claim-arbitrary.js';

const rendered = (claim: Claim) => {
  const text = renderClaim(claim);
  return { name: text.title, description: text.description };
};

/** The direction words of rendered titles, each for its opposite. */
const OPPOSITES: ReadonlyArray<[string, string]> = [
  ['higher', 'lower'],
  ['rose', 'fell'],
  ['rises', 'falls'],
  ['peaked', 'dipped'],
  ['spiked', 'slumped'],
  ['drops', 'rises'],
  ['positively', 'negatively'],
  ['the most', 'the least'],
  ['fewer', 'more'],
  ['above', 'below'],
];

function reversed(title: string): string {
  return title.replace(
    /\b(higher|lower|rose|fell|rises|falls|peaked|dipped|spiked|slumped|drops|positively|negatively|the most|the least|fewer|more|above|below)\b/g,
    (word) => {
      const pair = OPPOSITES.find(([one, other]) => one === word || other === word) as [string, string];
      return pair[0] === word ? pair[1] : pair[0];
    },
  );
}

describe('text the engine renders from a claim', () => {
  it('always agrees with the claim it was rendered from', () => {
    fc.assert(
      fc.property(claimArbitrary, (claim) => {
        expect(textDisagreements(claim, rendered(claim))).toEqual([]);
      }),
      { numRuns: 2_000 },
    );
  });

  it('is caught when its title is turned the other way', () => {
    fc.assert(
      fc.property(claimArbitrary, (claim) => {
        const title = reversed(renderClaim(claim).title);
        // a share of a total states two shares and no direction word: there is nothing to turn
        fc.pre(title !== renderClaim(claim).title);
        expect(textDisagreements(claim, { name: title, description: '' }).join(' ')).toMatch(
          /the text says (higher|lower) where the claim says/,
        );
      }),
      { numRuns: 1_000 },
    );
  });

  it('is caught when its title states the segment’s value seven times over', () => {
    fc.assert(
      fc.property(
        claimArbitrary
          .filter((claim) => claim.kind === 'difference' && claim.value > 0 && claim.comparison_value > 0)
          // no support or test: their figures are numbers the claim holds too
          .map(({ n: _n, test: _test, ...claim }): Claim => claim),
        (claim) => {
          const wrong = claim.value * 7.3;
          const near = (a: number, b: number) => Math.abs(a - b) <= 0.2 * Math.max(Math.abs(a), Math.abs(b));
          // a number the claim holds for another reason (its comparison, a ratio, a difference) is not a wrong number
          const gap = Math.abs(claim.value - claim.comparison_value);
          const bounds = [claim.segment?.value, claim.segment?.from, claim.segment?.to].flatMap((bound) =>
            typeof bound === 'number' ? [bound, bound - 1] : typeof bound === 'string' ? (bound.match(/\d+/g) ?? []).map(Number) : [],
          );
          const held = [
            claim.comparison_value,
            claim.value / claim.comparison_value,
            claim.comparison_value / claim.value,
            gap,
            gap / claim.comparison_value,
            ...bounds,
          ];
          // … nor one that reads as it when a percentage is taken as a plain number or the other way round
          fc.pre(!held.some((number) => near(number, wrong) || near(number, wrong * 100) || near(number * 100, wrong)));
          const title = renderClaim(claim).title.replace(
            `: ${formatMetricValue(claim, claim.value)} vs `,
            `: ${formatMetricValue(claim, wrong)} vs `,
          );
          fc.pre(title !== renderClaim(claim).title);
          expect(textDisagreements(claim, { name: title, description: '' }).join(' ')).toMatch(
            /the title states .*, which the claim does not hold/,
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('a model’s own words', () => {
  const southeast = claimSchema.parse({
    kind: 'difference',
    metric: {
      kind: 'rate',
      table: 'main.orders',
      condition: { column: 'order_status', op: '=', value: 'cancelled' },
      label: 'cancellation rate',
    },
    segment: { column: 'shipping_region', value: 'Southeast', label: 'shipping region' },
    comparison: { kind: 'rest' },
    value: 0.1448,
    comparison_value: 0.0349,
    direction: 'higher',
    n: { segment: 2479, comparison: 9354 },
    noun: 'orders',
  });

  it('agree when they state the claim in other words', () => {
    const text = {
      name: 'Southeast orders are cancelled four times as often: 14.5% vs 3.5%',
      description: 'Of 2,479 orders shipped to the Southeast, 14.5% were cancelled, well above the 3.5% cancellation rate elsewhere.',
    };
    expect(textDisagreements(southeast, text)).toEqual([]);
  });

  it('are caught when they reverse the direction', () => {
    const text = {
      name: 'Southeast orders are cancelled less often: 3.5% vs 14.5%',
      description: 'A lower cancellation rate than the other regions.',
    };
    expect(textDisagreements(southeast, text)).toContain('the text says lower where the claim says higher');
  });

  it('are caught when they name another number', () => {
    expect(textDisagreements(southeast, { name: 'Southeast orders: 43.4% cancellation rate, against 3.5%', description: '' })).toContain(
      'the title states 43.4%, which the claim does not hold',
    );
    expect(
      textDisagreements(southeast, {
        name: 'Southeast orders are cancelled 10× as often as the rest (cancellation rate)',
        description: '',
      }),
    ).toContain('the title states 10, which the claim does not hold');
  });

  it('are caught when they name another segment or another measure', () => {
    expect(
      textDisagreements(southeast, { name: 'Northeast orders have a higher cancellation rate: 14.5% vs 3.5%', description: '' }),
    ).toContain('the text does not name the segment "Southeast"');
    expect(textDisagreements(southeast, { name: 'Southeast orders take longer to deliver: 14.5% vs 3.5%', description: '' })).toContain(
      "the text does not talk about the claim's measure (cancellation rate)",
    );
  });

  it('may name times of day and calendar years in the title without the claim holding them', () => {
    const text = { name: 'Southeast orders placed 20:00–23:59 in 2024 have a higher cancellation rate: 14.5% vs 3.5%', description: '' };
    expect(textDisagreements(southeast, text)).toEqual([]);
  });

  it('do not count the digits of a value the claim names as numbers it states', () => {
    const version = claimSchema.parse({ ...southeast, segment: { column: 'app_version', value: '3.4.0', label: 'app version' } });
    expect(
      textDisagreements(version, { name: 'Orders from app version 3.4.0 have a higher cancellation rate: 14.5% vs 3.5%', description: '' }),
    ).toEqual([]);
    // the value may be the measure's: the share of sessions on app version 3.2.1
    const share = claimSchema.parse({
      ...southeast,
      metric: {
        kind: 'rate',
        table: 'main.sessions',
        condition: { column: 'app_version', op: '=', value: '3.2.1' },
        label: 'share with app version 3.2.1',
      },
      segment: { column: 'started_at', value: 2, grain: 'month_of_year', label: 'started at' },
      value: 1,
      comparison_value: 0.157,
    });
    expect(textDisagreements(share, rendered(share))).toEqual([]);
    expect(
      textDisagreements(share, {
        name: 'Sessions in February have a higher share with app version 3.2.1: 100% vs 15.7% (6.38×)',
        description: '',
      }),
    ).toEqual([]);
  });

  it('do not count the digits of the names the claim gives its measure, but still check the numbers around them', () => {
    const retention = claimSchema.parse({
      ...southeast,
      metric: {
        kind: 'rate',
        table: 'main.users',
        condition: { column: 'week5_retention', op: '=', value: true },
        label: 'week-5 retention (active on days 28-34)',
      },
      segment: { column: 'signup_channel', value: 'tiktok_ads', label: 'signup channel' },
      value: 0.166,
      comparison_value: 0.579,
      direction: 'lower',
    });
    const name = 'Users whose signup channel is tiktok_ads have a lower Week-5 retention (active on days 28-34) rate: 16.6% vs 57.9%';
    expect(textDisagreements(retention, { name, description: '' })).toEqual([]);
    expect(textDisagreements(retention, { name: name.replace('16.6%', '26.6%'), description: '' })).toContain(
      'the title states 26.6%, which the claim does not hold',
    );
  });

  it('read abbreviated numbers to the precision they are written with', () => {
    const revenue = claimSchema.parse({
      ...southeast,
      metric: { kind: 'sum', table: 'main.orders', column: 'total', label: 'revenue (USD)' },
      value: 1_137_250,
      comparison_value: 501_299,
    });
    expect(textDisagreements(revenue, { name: 'Southeast orders bring in more revenue: $1.1M vs $0.5M', description: '' })).toEqual([]);
    expect(textDisagreements(revenue, { name: 'Southeast orders bring in more revenue: $1.6M vs $0.5M', description: '' })).toContain(
      'the title states 1.6M, which the claim does not hold',
    );
  });
});
