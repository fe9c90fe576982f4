/** Small, explicit table schemas for schema tests. */
import type { ColumnCategory, ColumnInfo, Row, TableSchema } from '../../../src/warehouse/port.js';

type ColumnSpec = string | [name: string, type: string, category?: ColumnCategory, nullable?: boolean];

function categoryOf(name: string): ColumnCategory {
  if (name === 'id' || name.endsWith('_id')) return 'primary_key';
  if (name.endsWith('_at') || name.endsWith('_date')) return 'time';
  if (/amount|price|count|total|quantity/.test(name)) return 'metric';
  return 'dimension';
}

export function column(spec: ColumnSpec): ColumnInfo {
  if (typeof spec === 'string') return { name: spec, type: 'VARCHAR', nullable: true, category: categoryOf(spec) };
  const [name, type, category, nullable] = spec;
  return { name, type, nullable: nullable ?? true, category: category ?? categoryOf(name) };
}

export function table(qualified: string, columns: ColumnSpec[], rowCount = 100, samples: Row[] = []): TableSchema {
  const [schema, name] = qualified.split('.') as [string, string];
  return { schema, name, qualified, columns: columns.map(column), rowCount, samples };
}

/** A small e-commerce warehouse. */
export function shopTables(): TableSchema[] {
  return [
    table(
      'main.orders',
      [['order_id', 'BIGINT', 'primary_key', false], 'customer_id', ['amount', 'DOUBLE'], ['created_at', 'TIMESTAMP'], 'status'],
      1_234_567,
      [
        { order_id: 2, status: 'paid', amount: 12.5, customer_id: 7, created_at: '2024-01-02' },
        { order_id: 1, status: null, amount: 3, customer_id: 9, created_at: '2024-01-01' },
      ],
    ),
    table('main.customers', [['id', 'BIGINT', 'primary_key', false], 'email', 'country', ['signup_at', 'TIMESTAMP']], 50_000),
    table('main.order_items', ['order_id', 'product_id', ['quantity', 'INTEGER'], ['price', 'DOUBLE']], 3_500_000),
    table('main.products', ['product_id', 'name', 'category_id'], 900),
    table('main.categories', ['id', 'label'], 12),
    table('main.weather_daily', ['city', ['day', 'DATE', 'time'], ['temperature', 'DOUBLE', 'metric']], -1),
  ];
}
