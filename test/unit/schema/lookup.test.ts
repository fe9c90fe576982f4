import { describe, expect, it } from 'vitest';
import { DATA_CLOSE, DATA_OPEN } from '../../../src/llm/data-fence.js';
import { createSchemaBudget } from '../../../src/schema/budget.js';
import { DEFAULT_MAX_LOOKUPS_PER_RUN, LOOKUP_MAX_COLUMNS, MAX_LOOKUP_TABLES_PER_CALL } from '../../../src/schema/constants.js';
import { lookupSchema } from '../../../src/schema/lookup.js';
import { createTableResolver, normaliseTableRef } from '../../../src/schema/table-resolver.js';
import type { TableSchema } from '../../../src/warehouse/port.js';
import { shopTables, table } from './fixtures.js';

const tables = shopTables();

describe('lookup_schema', () => {
  describe('when the tables exist and were not fetched yet', () => {
    const result = lookupSchema(['main.orders', 'customers'], { tables, budget: createSchemaBudget() });

    it('renders columns with type, nullability and category, and sample rows with sorted keys and NULL', () => {
      expect(result.found).toEqual(['main.orders', 'main.customers']);
      expect(result.text).toContain(
        `${DATA_OPEN}\nSchema for main.orders (1.2M rows):\nColumns (5):\n- order_id BIGINT NOT NULL [primary_key]\n- customer_id VARCHAR NULL [primary_key]`,
      );
      expect(result.text).toContain(
        'Sample rows (2):\n1. {amount: 12.5, created_at: "2024-01-02", customer_id: 7, order_id: 2, status: "paid"}\n2. {amount: 3, created_at: "2024-01-01", customer_id: 9, order_id: 1, status: NULL}',
      );
      expect(result.text).toContain(`${DATA_OPEN}\nSchema for main.customers (50K rows):`);
      expect(result.text).toContain(`Sample rows: none available.\n${DATA_CLOSE}`);
    });

    it('charges one call and records the tables as fetched', () => {
      expect(result.debited).toBe(true);
      expect(result.budget).toEqual({ lookups_used: 1, searches_used: 0, fetched: ['main.orders', 'main.customers'] });
      expect(result.budgetRemaining).toBe(DEFAULT_MAX_LOOKUPS_PER_RUN - 1);
      expect(
        result.text.endsWith(`lookup_schema budget: 1/${DEFAULT_MAX_LOOKUPS_PER_RUN} calls used, ${DEFAULT_MAX_LOOKUPS_PER_RUN - 1} left.`),
      ).toBe(true);
    });
  });

  it('repeats nothing and charges nothing when every table was already fetched', () => {
    const budget = { lookups_used: 4, searches_used: 2, fetched: ['main.orders'] };
    const result = lookupSchema(['main.orders', 'orders'], { tables, budget });
    expect(result.found).toEqual([]);
    expect(result.alreadyFetched).toEqual(['main.orders']);
    expect(result.debited).toBe(false);
    expect(result.budget).toEqual(budget);
    expect(result.text).not.toContain('Schema for');
    expect(result.text).toContain('Already inspected earlier in this run');
  });

  it('fetches only the new tables of a partly repeated call, and charges it', () => {
    const result = lookupSchema(['main.orders', 'main.products'], {
      tables,
      budget: { lookups_used: 1, searches_used: 0, fetched: ['main.orders'] },
    });
    expect(result.found).toEqual(['main.products']);
    expect(result.alreadyFetched).toEqual(['main.orders']);
    expect(result.budget).toEqual({ lookups_used: 2, searches_used: 0, fetched: ['main.orders', 'main.products'] });
    expect(result.text.match(/Schema for/g)).toHaveLength(1);
  });

  it(`looks at no more than ${MAX_LOOKUP_TABLES_PER_CALL} tables per call and says which were left out`, () => {
    const many = Array.from({ length: 14 }, (_, index) => table(`main.t${index}`, ['id']));
    const refs = many.map((entry) => entry.qualified);
    const result = lookupSchema(refs, { tables: many, budget: createSchemaBudget() });
    expect(result.found).toEqual(refs.slice(0, MAX_LOOKUP_TABLES_PER_CALL));
    expect(result.truncated).toEqual(refs.slice(MAX_LOOKUP_TABLES_PER_CALL));
    expect(result.text).toContain('Truncated: at most 10 tables per call; not looked up: `main.t10`, `main.t11`, `main.t12`, `main.t13`.');
  });

  it('refuses without charging once the run budget is spent', () => {
    const budget = { lookups_used: DEFAULT_MAX_LOOKUPS_PER_RUN, searches_used: 0, fetched: [] };
    const result = lookupSchema(['main.orders'], { tables, budget });
    expect(result.found).toEqual([]);
    expect(result.debited).toBe(false);
    expect(result.budget).toBe(budget);
    expect(result.budgetRemaining).toBe(0);
    expect(result.text).toMatch(/^lookup_schema budget exhausted \(30\/30 calls used\)/);
  });

  it('honours a smaller per-run limit', () => {
    const result = lookupSchema(['main.orders'], { tables, budget: { lookups_used: 2, searches_used: 0, fetched: [] }, maxLookups: 2 });
    expect(result.found).toEqual([]);
    expect(result.text).toContain('2/2');
  });

  it('reports unknown tables and still charges the call', () => {
    const result = lookupSchema(['main.nope', '`main.orders`'], { tables, budget: createSchemaBudget() });
    expect(result.found).toEqual(['main.orders']);
    expect(result.notFound).toEqual(['main.nope']);
    expect(result.text).toContain('Not found: `main.nope`. Check the catalog or use search_tables.');
    const none = lookupSchema(['ghost'], { tables, budget: createSchemaBudget() });
    expect(none.debited).toBe(true);
    expect(none.budget.lookups_used).toBe(1);
  });

  it('treats a bare name shared by two schemas as not found and names the candidates', () => {
    const twins = [table('sales.orders', ['id']), table('archive.orders', ['id'])];
    const result = lookupSchema(['orders'], { tables: twins, budget: createSchemaBudget() });
    expect(result.found).toEqual([]);
    expect(result.notFound).toEqual(['orders']);
    expect(result.text).toContain(`\`orders\` could be ${DATA_OPEN} archive.orders, sales.orders ${DATA_CLOSE}`);
  });

  it('resolves a unique case-insensitive match, exact names first', () => {
    const mixed = [table('main.Orders', ['id']), table('main.orders_v2', ['id'])];
    expect(lookupSchema(['MAIN.ORDERS'], { tables: mixed, budget: createSchemaBudget() }).found).toEqual(['main.Orders']);
    expect(lookupSchema(['orders'], { tables: mixed, budget: createSchemaBudget() }).found).toEqual(['main.Orders']);
    const clash = [table('main.Orders', ['id']), table('main.ORDERS', ['id'])];
    expect(lookupSchema(['main.orders'], { tables: clash, budget: createSchemaBudget() }).notFound).toEqual(['main.orders']);
    expect(lookupSchema(['main.ORDERS'], { tables: clash, budget: createSchemaBudget() }).found).toEqual(['main.ORDERS']);
  });

  it(`shows at most ${LOOKUP_MAX_COLUMNS} columns, 3 sample rows, and cuts long values at 80 characters`, () => {
    const columns = Array.from({ length: 60 }, (_, index) => `c${String(index).padStart(2, '0')}`);
    const row = Object.fromEntries(columns.map((name) => [name, name === 'c00' ? 'x'.repeat(200) : 1]));
    const wide: TableSchema = table('main.wide', columns, 10, [row, row, row, row, row]);
    const { text } = lookupSchema(['main.wide'], { tables: new Map([[wide.qualified, wide]]), budget: createSchemaBudget() });
    expect(text.match(/^- c\d\d /gm)).toHaveLength(LOOKUP_MAX_COLUMNS);
    expect(text).toContain('(10 more columns not shown)');
    expect(text).toContain('Sample rows (3):');
    expect(text).not.toContain('4. {');
    expect(text).toContain(`c00: "${'x'.repeat(80)}…"`);
    expect(text).not.toContain('c55:');
  });

  it('accepts a resolver built once over the tables', () => {
    const resolver = createTableResolver(tables);
    expect(lookupSchema(['products'], { tables: resolver, budget: createSchemaBudget() }).found).toEqual(['main.products']);
  });
});

describe('normaliseTableRef', () => {
  it('trims and strips one layer of backticks or double quotes, and quoted schema.table pairs', () => {
    expect(
      ['  main.orders ', '`main.orders`', '"main.orders"', '"main"."orders"', '`main`.`orders`', '``x``', '   '].map(normaliseTableRef),
    ).toEqual(['main.orders', 'main.orders', 'main.orders', 'main.orders', 'main.orders', '`x`', '']);
  });

  it('reads names quoted as prompts show them: a quoted part, doubled quotes inside', () => {
    expect(['main."Work Items"', '"Sales Data"."Say ""hi"""', '"main".orders', '"unclosed'].map(normaliseTableRef)).toEqual([
      'main.Work Items',
      'Sales Data.Say "hi"',
      'main.orders',
      '"unclosed',
    ]);
  });
});
