import { describe, expect, it } from 'vitest';
import { groupingsOf } from '../../../../src/discovery/mining/groupings.js';
import { measuresOf } from '../../../../src/discovery/mining/measures.js';
import type { MiningColumn, MiningTable } from '../../../../src/discovery/mining/mining-table.js';

const column = (fields: Partial<MiningColumn> & Pick<MiningColumn, 'name' | 'role'>): MiningColumn => ({
  type: 'VARCHAR',
  nonNull: 1_000,
  distinct: 2,
  label: fields.name.replace(/_/g, ' '),
  ...fields,
});

// sessions with a declared "cart abandonment rate": no order, among sessions that added to cart; the
// outcome's derived column holds whether the session has an order, under the outcome's name and label
const table: MiningTable = {
  ref: { schema: 'main', name: 'sessions' },
  qualified: 'main.sessions',
  rows: 1_000,
  columns: [
    column({ name: 'device', role: 'dimension', distinct: 3, top: [{ value: 'mobile', count: 500 }] }),
    column({ name: 'added_to_cart', role: 'binary', positive: true }),
    column({ name: 'cart_abandonment', role: 'binary', positive: true, label: 'cart abandonment rate' }),
  ],
  durations: [],
  calendarParts: [],
  noun: 'sessions',
  derived: [{ from: 'child', name: 'cart_abandonment', table: 'main.orders', link: 'session_id', key: 'session_id', aggregate: 'exists' }],
  from: 'main.sessions AS t',
  expr: (name) => `t.${name}`,
  declared: [
    {
      kind: 'rate',
      column: 'cart_abandonment',
      op: '=',
      value: false,
      label: 'cart abandonment rate',
      source: 'declared',
      among: [{ column: 'added_to_cart', op: '=', value: true }],
    },
  ],
};

describe("a pack's declared outcome is mined only as declared", () => {
  it('measures the outcome with its filters and sense, never as the bare presence flag under its label', () => {
    const onOutcome = measuresOf(table).filter((measure) => measure.kind === 'rate' && measure.column === 'cart_abandonment');
    expect(onOutcome).toEqual([table.declared[0]]);
    // the table's own flags are still rates
    expect(measuresOf(table).some((measure) => measure.kind === 'rate' && measure.column === 'added_to_cart')).toBe(true);
  });

  it('does not group rows by the outcome’s column, whose label names the outcome rather than the flag', () => {
    const columns = groupingsOf(table).map((grouping) => grouping.column);
    expect(columns).toContain('device');
    expect(columns).toContain('added_to_cart');
    expect(columns).not.toContain('cart_abandonment');
  });

  it('keeps an outcome that is the flag itself (present, among all rows) as a flag and a grouping', () => {
    const retention: MiningTable = {
      ...table,
      columns: [...table.columns, column({ name: 'd7_retention', role: 'binary', positive: true, label: 'D7 retention' })],
      declared: [{ kind: 'rate', column: 'd7_retention', op: '=', value: true, label: 'D7 retention', source: 'declared', among: [] }],
    };
    expect(measuresOf(retention).filter((measure) => measure.kind === 'rate' && measure.column === 'd7_retention')).toHaveLength(2);
    expect(groupingsOf(retention).map((grouping) => grouping.column)).toContain('d7_retention');
  });
});
