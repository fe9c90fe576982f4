import { describe, expect, it } from 'vitest';
import { betterDirection } from '../../../../src/discovery/mining/mine.js';
import { packVocabulary } from '../../../../src/discovery/mining/pack-vocabulary.js';
import { packMiningSchema } from '../../../../src/discovery/packs/pack-schema.js';
import type { ClaimMetric } from '../../../../src/domain/index.js';
import type { TableDescription } from '../../../../src/warehouse/port.js';

const column = (name: string, type = 'VARCHAR') => ({ name, type, nullable: true, category: 'dimension' as const });
const tables = [
  {
    schema: 'main',
    name: 'sessions',
    qualified: 'main.sessions',
    rowCount: 10,
    columns: [column('session_id'), column('reached_checkout', 'BOOLEAN')],
  },
  {
    schema: 'main',
    name: 'orders',
    qualified: 'main.orders',
    rowCount: 10,
    columns: [column('session_id'), column('total_amount', 'DOUBLE'), column('is_refunded', 'BOOLEAN')],
  },
] as unknown as TableDescription[];

const vocabulary = packVocabulary(
  packMiningSchema.parse({
    better: {
      'orders.total_amount': 'higher',
      'orders.is_refunded': 'lower',
      'orders.shipped_at': 'higher',
      'orders.ordered_at->shipped_at': 'lower',
    },
    outcomes: [
      {
        id: 'checkout_abandonment',
        better: 'lower',
        label: 'checkout abandonment rate',
        table: 'sessions',
        child: { table: 'orders', link: 'session_id', key: 'session_id' },
        present: false,
        among: [{ column: 'reached_checkout', op: '=', value: true }],
      },
    ],
  }),
  tables,
);
const declared = new Set(['main.sessions.checkout_abandonment']);
const metric = (fields: Partial<ClaimMetric>): ClaimMetric => ({ kind: 'mean', table: 'main.orders', filters: [], label: '', ...fields });

describe('which way a measure is better, as the pack declares it', () => {
  it('resolves the pack’s bare table names against the warehouse', () => {
    expect(vocabulary.better).toEqual({
      'main.orders.total_amount': 'higher',
      'main.orders.is_refunded': 'lower',
      'main.orders.shipped_at': 'higher',
      'main.orders.ordered_at->shipped_at': 'lower',
      'main.sessions.checkout_abandonment': 'lower',
    });
  });

  it('gives a declared outcome’s rate the direction the pack names, whatever value it counts', () => {
    const abandonment = metric({
      kind: 'rate',
      table: 'main.sessions',
      condition: { column: 'checkout_abandonment', op: '=', value: false },
    });
    expect(betterDirection(abandonment, vocabulary.better, declared)).toBe('lower');
  });

  it('turns a flag’s direction round for the rate of its false value', () => {
    const refunded = (value: boolean) => metric({ kind: 'rate', condition: { column: 'is_refunded', op: '=', value } });
    expect(betterDirection(refunded(true), vocabulary.better, declared)).toBe('lower');
    expect(betterDirection(refunded(false), vocabulary.better, declared)).toBe('higher');
  });

  it('reads a mean by its column, a per-row total of a child by the child’s column, and knows nothing of the rest', () => {
    expect(betterDirection(metric({ column: 'total_amount' }), vocabulary.better, declared)).toBe('higher');
    const derived = [
      {
        from: 'child' as const,
        name: 'orders_total_amount',
        table: 'main.orders',
        link: 'customer_id',
        key: 'customer_id',
        aggregate: 'sum' as const,
        column: 'total_amount',
      },
    ];
    expect(betterDirection(metric({ table: 'main.customers', column: 'orders_total_amount' }), vocabulary.better, declared, derived)).toBe(
      'higher',
    );
    expect(betterDirection(metric({ column: 'shipping_amount' }), vocabulary.better, declared)).toBeUndefined();
    expect(
      betterDirection(metric({ kind: 'rate', condition: { column: 'status', op: '=', value: 'cancelled' } }), vocabulary.better, declared),
    ).toBeUndefined();
  });

  it('tells a duration by its two ends from the rate of its end being filled in', () => {
    const shipping = metric({ kind: 'duration_mean', start_column: 'ordered_at', end_column: 'shipped_at', unit: 'days' });
    expect(betterDirection(shipping, vocabulary.better, declared)).toBe('lower');
    const shipped = (op: 'not_null' | 'is_null') => metric({ kind: 'rate', condition: { column: 'shipped_at', op } });
    expect(betterDirection(shipped('not_null'), vocabulary.better, declared)).toBe('higher');
    expect(betterDirection(shipped('is_null'), vocabulary.better, declared)).toBe('lower');
  });
});
