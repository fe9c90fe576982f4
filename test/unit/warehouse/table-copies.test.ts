import { describe, expect, it } from 'vitest';
import { isArchiveShaped, isTableCopy } from '../../../src/warehouse/table-copies.js';

describe('table copies', () => {
  it('recognises archive, log, backup, temp and staging names only as suffixes', () => {
    expect(
      [
        'sales_2023',
        'sales_202301',
        'sales_2023_01',
        'app_log',
        'orders_archive',
        'x_bkp',
        'x_backup',
        'x_tmp',
        'x_temp',
        'x_stg',
        'x_staging',
      ].every(isArchiveShaped),
    ).toBe(true);
    expect(['logins', 'archive_index', 'temperature', 'orders', 'stage_results', 'y2023_sales'].some(isArchiveShaped)).toBe(false);
  });

  it('counts a table in a staging, archive or backup schema as a copy, whatever its name', () => {
    for (const schema of ['staging', 'archive', 'dbt_stg', 'backups', 'scratch', 'sandbox'])
      expect(isTableCopy({ schema, name: 'orders' }), schema).toBe(true);
    for (const schema of ['main', 'public', 'analytics', 'stage_results'])
      expect(isTableCopy({ schema, name: 'orders' }), schema).toBe(false);
  });

  it('counts staging, temp, history and snapshot names as copies in any schema', () => {
    for (const name of [
      'stg_orders',
      'tmp_orders',
      'orders_hist',
      'orders_history',
      'orders_copy',
      'orders_snapshot',
      'orders_v2',
      'orders_2023',
    ])
      expect(isTableCopy({ schema: 'main', name }), name).toBe(true);
    for (const name of ['orders', 'order_history_events', 'version_notes', 'histogram'])
      expect(isTableCopy({ schema: 'main', name }), name).toBe(false);
  });
});
