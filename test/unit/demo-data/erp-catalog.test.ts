import { describe, expect, it } from 'vitest';
import { ERP_TABLE_COUNT, erpEntities, erpFillerTables, erpSchemas, stableUnitHash } from '../../../src/demo/datasets/erp-catalog.js';

describe('when the ERP catalogue is cut to the filler count', () => {
  const excluded = new Set(['sales.order_lines', 'finance.gl_entries', 'inventory.items']);
  const fillers = erpFillerTables(ERP_TABLE_COUNT - excluded.size, excluded);
  const names = fillers.map((table) => `${table.schema}.${table.name}`);

  it('returns exactly the requested count of unique qualified names', () => {
    expect(fillers).toHaveLength(ERP_TABLE_COUNT - excluded.size);
    expect(new Set(names).size).toBe(names.length);
  });

  it('leaves out the tables the generator builds itself', () => {
    for (const name of excluded) expect(names).not.toContain(name);
  });

  it('uses only declared schemas and plain lower-case identifiers', () => {
    const schemas = new Set(erpSchemas());
    for (const table of fillers) {
      expect(schemas.has(table.schema)).toBe(true);
      expect(table.name).toMatch(/^[a-z][a-z0-9_]*$/);
    }
  });

  it('includes staging copies, backups and yearly archives, as an old ERP accumulates them', () => {
    expect(names.some((name) => name.startsWith('staging.stg_'))).toBe(true);
    expect(names.some((name) => name.endsWith('_bkp'))).toBe(true);
    expect(names.some((name) => /^archive\..+_20\d\d$/.test(name))).toBe(true);
  });

  it('spreads the tables over several business schemas', () => {
    expect(new Set(erpEntities().map((entity) => entity.schema)).size).toBeGreaterThanOrEqual(7);
  });

  it('refuses a count the catalogue cannot reach', () => {
    expect(() => erpFillerTables(100_000, new Set())).toThrow(RangeError);
  });
});

describe('when a DDL-time choice is hashed from a string', () => {
  it('is stable and in [0, 1)', () => {
    expect(stableUnitHash('42:rows:finance.budgets')).toBe(stableUnitHash('42:rows:finance.budgets'));
    for (const text of ['', 'a', 'sales.orders_2019', '7:empty:hr.employees']) {
      const value = stableUnitHash(text);
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(1);
    }
  });
  it('differs between seeds for the same table', () => {
    expect(stableUnitHash('1:rows:hr.employees')).not.toBe(stableUnitHash('2:rows:hr.employees'));
  });
});
