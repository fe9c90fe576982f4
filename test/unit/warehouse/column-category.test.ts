import { describe, expect, it } from 'vitest';
import { inferColumnCategory } from '../../../src/warehouse/index.js';

describe('when a column category is inferred', () => {
  it.each([
    ['id', 'INTEGER', 'primary_key'],
    ['ID', 'bigint', 'primary_key'],
    ['created_at', 'TIMESTAMP', 'time'],
    ['created_at', 'timestamp with time zone', 'time'],
    ['signup_date', 'DATE', 'time'],
    ['anything', 'TIMESTAMP_NS', 'time'],
    ['created_at', 'VARCHAR', 'time'],
    ['order_year', 'INTEGER', 'time'],
    ['amount', 'DECIMAL(10,2)', 'metric'],
    ['revenue', 'double precision', 'metric'],
    ['quantity', 'BIGINT', 'metric'],
    ['customer_id', 'INTEGER', 'dimension'],
    ['customerId', 'integer', 'dimension'],
    ['sku_key', 'BIGINT', 'dimension'],
    ['country', 'VARCHAR', 'dimension'],
    ['is_active', 'BOOLEAN', 'dimension'],
    ['marketing_opt_in', 'tinyint(1)', 'dimension'],
    ['stock_level', 'tinyint(4)', 'metric'],
    ['duration', 'INTERVAL', 'dimension'],
  ] as const)('%s %s is %s', (name, type, category) => {
    expect(inferColumnCategory(name, type)).toBe(category);
  });

  it('uses a declared primary key over the name', () => {
    expect(inferColumnCategory('order_number', 'INTEGER', { primaryKey: true })).toBe('primary_key');
  });
});
