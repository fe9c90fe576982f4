import { describe, expect, it } from 'vitest';
import { formatDemoSummary } from '../../../src/cli/commands/demo-data.js';

describe('when the demo-data summary is printed', () => {
  it('lists every table of a small warehouse with its rows, the truths path and the elapsed seconds', () => {
    const text = formatDemoSummary({
      path: '/tmp/shop.duckdb',
      truthsPath: '/tmp/shop.duckdb.truths.json',
      elapsedMs: 1234,
      tables: [
        { name: 'main.customers', rows: 5000 },
        { name: 'main.orders', rows: 12000 },
      ],
    });
    expect(text).toContain('main.customers');
    expect(text).toContain('12,000');
    expect(text).toContain('truths: /tmp/shop.duckdb.truths.json');
    expect(text).toContain('1.23 s');
    expect(text).toContain('2 tables, 17,000 rows');
  });

  it('shows only the largest tables of a huge warehouse and summarises the rest', () => {
    const tables = Array.from({ length: 1500 }, (_, index) => ({ name: `archive.t_${index}`, rows: index % 3 === 0 ? 0 : index }));
    const text = formatDemoSummary({ path: '/tmp/erp.duckdb', truthsPath: '/tmp/erp.duckdb.truths.json', elapsedMs: 6000, tables });
    expect(text).toContain('archive.t_1499');
    expect(text).not.toContain('archive.t_1 ');
    expect(text).toContain('… and 1,475 more tables (1,500 in all, 500 empty)');
  });
});
