/**
 * Cost follows the question, not the table: on a table the catalog reports as large, profiling reads
 * a sample and sketches, never an exact COUNT(DISTINCT …) over every row; a statement that runs past
 * the timeout is recorded as a timeout. The table is small and its catalog row count is raised, so the
 * statements are the ones a 50M-row table gets while the test stays fast.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MINING_SETTINGS, mineWarehouse } from '../../../src/discovery/mining/mine.js';
import type { ColumnModel } from '../../../src/llm/offline-analyst/types.js';
import { createMiningQueryRunner } from '../../../src/discovery/mining/query-runner.js';
import { createLocalEmbedder } from '../../../src/embed/local.js';
import { planQueries } from '../../../src/llm/offline-analyst/planner/candidates.js';
import { sqlDialect } from '../../../src/llm/offline-analyst/sql/dialect.js';
import { profileQuery, sampleRowsKey } from '../../../src/llm/offline-analyst/sql/profile-query.js';
import type { TableModel } from '../../../src/llm/offline-analyst/types.js';
import { discoverSchema } from '../../../src/schema/schema-discovery.js';
import { openWarehouse } from '../../../src/warehouse/index.js';
import type { Warehouse } from '../../../src/warehouse/port.js';

const CLAIMED_ROWS = 50_000_000;
/** Past mining's sample threshold, so mining samples: 20 % of the 20,000 rows. */
const MINING_CLAIMED_ROWS = 2_500_000;

let directory: string;
let warehouse: Warehouse;
const statements: string[] = [];

/** The warehouse, with every statement it is asked to run written down. */
function recording(inner: Warehouse): Warehouse {
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'query')
        return (sql: string, options?: Parameters<Warehouse['query']>[1]) => {
          statements.push(sql);
          return target.query(sql, options);
        };
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'assay-profile-cost-'));
  const file = join(directory, 'shop.duckdb');
  const instance = await DuckDBInstance.create(file);
  const connection = await instance.connect();
  await connection.run(`CREATE TABLE orders AS
    SELECT i AS order_id, 1 + i % 997 AS customer_id,
      TIMESTAMP '2024-01-01' + to_seconds(i * 600) AS ordered_at,
      ['mobile', 'desktop', 'tablet'][1 + i % 3] AS device,
      ['US', 'DE', 'FR', 'JP'][1 + (i // 7) % 4] AS country,
      10 + (i * 37) % 200 + CASE WHEN i % 3 = 2 THEN 40 ELSE 0 END AS amount,
      (i * 13) % 100 < CASE WHEN i % 3 = 2 THEN 30 ELSE 10 END AS returned
    FROM range(20000) t(i)`);
  connection.closeSync();
  instance.closeSync();
  warehouse = recording(await openWarehouse(`duckdb:${file}`));
});

afterAll(async () => {
  await warehouse?.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('when mining profiles a table the catalog reports past its sample threshold', () => {
  it('reads a sample with sketches and runs no exact COUNT(DISTINCT …) over the whole table', async () => {
    const tables = (await discoverSchema(warehouse)).map((table) => ({ ...table, rowCount: MINING_CLAIMED_ROWS }));
    statements.length = 0;
    const outcome = await mineWarehouse({
      warehouse,
      embedder: createLocalEmbedder(),
      tables,
      goal: 'what drives returns',
      description: '',
      nouns: {},
      labels: {},
      outcomes: [],
      settings: DEFAULT_MINING_SETTINGS,
    });
    const profiles = outcome.queries.filter((query) => /^(profile|top values) /.test(query.label));
    expect(profiles.length).toBeGreaterThanOrEqual(2);
    expect(statements.length).toBeGreaterThan(profiles.length);
    for (const sql of statements) {
      // every statement reads the table through the sample, so no aggregate ever sees every row
      expect(sql).toMatch(/USING SAMPLE 20 PERCENT \(bernoulli, 7\)/);
      expect(sql.replace(/\(SELECT \* FROM "main"\."orders" USING SAMPLE[^)]*\)[^)]*\)/g, '')).not.toMatch(/"main"\."orders"/);
    }
    const profile = statements[0] ?? '';
    expect(profile).toMatch(/approx_count_distinct\(/);
    expect(profile).not.toMatch(/count\(DISTINCT/i);
    expect(outcome.findings.length).toBeGreaterThan(0);
    expect(outcome.findings.every((finding) => finding.claim.approximate === true)).toBe(true);
    expect(outcome.notes).toContain(
      'main.orders: mined on a uniform sample of about 500,000 of its 2,500,000 rows (findings are approximate; their recounts are exact)',
    );
  });
});

describe('when the offline analyst profiles a table the catalog reports at 50M rows', () => {
  const column = (name: string, role: 'reference' | 'text' | 'ordinal') => ({ name, type: 'VARCHAR', nullable: true, role });
  const table: TableModel = {
    qualified: 'main.orders',
    name: 'orders',
    rows: CLAIMED_ROWS,
    columns: [column('customer_id', 'reference'), column('device', 'text'), column('country', 'text')] as TableModel['columns'],
  };

  it('counts distinct values only inside a block sample it reads once, and says how many rows it read', async () => {
    const sql = profileQuery(sqlDialect('duckdb'), [table]);
    expect(sql).toMatch(
      /^WITH sample_0 AS MATERIALIZED \(SELECT customer_id, device, country FROM main\.orders USING SAMPLE 0.5 PERCENT \(system, 7\)\)/,
    );
    expect(sql.match(/FROM main\.orders/g)).toHaveLength(1);
    for (const counted of sql.match(/COUNT\(DISTINCT [^)]*\) FROM [a-z_.0-9]+/g) ?? []) expect(counted).toMatch(/FROM sample_0$/);
    const result = await warehouse.query(sql);
    expect(Object.keys(result.rows[0] ?? {})).toContain(sampleRowsKey(table));
  });

  it('reads a table below the sample size whole, as before', () => {
    const sql = profileQuery(sqlDialect('duckdb'), [{ ...table, rows: 20_000 }]);
    expect(sql).not.toMatch(/SAMPLE/);
    expect(sql).toMatch(/COUNT\(DISTINCT customer_id\) FROM main\.orders/);
  });
});

describe('when the offline analyst explores a table the catalog reports at 50M rows', () => {
  it('runs every planned query about it through a block sample the warehouse accepts, and says so', async () => {
    const role = (name: string, type: string, kind: ColumnModel['role'], extra: Partial<ColumnModel> = {}): ColumnModel => ({
      name,
      type,
      nullable: true,
      role: kind,
      ...extra,
    });
    const table: TableModel = {
      qualified: 'main.orders',
      name: 'orders',
      rows: CLAIMED_ROWS,
      columns: [
        role('order_id', 'BIGINT', 'key', { distinct: CLAIMED_ROWS }),
        role('customer_id', 'BIGINT', 'reference', { distinct: 997 }),
        role('ordered_at', 'TIMESTAMP', 'time'),
        role('device', 'VARCHAR', 'text', { distinct: 3, values: ['desktop', 'mobile', 'tablet'], words: 1 }),
        role('country', 'VARCHAR', 'text', { distinct: 4, values: ['DE', 'FR', 'JP', 'US'], words: 1 }),
        role('amount', 'INTEGER', 'metric'),
        role('returned', 'BOOLEAN', 'flag'),
      ],
    };
    const areas = [
      { id: 'segments', name: 'Segments', description: '', keywords: ['segment', 'rate'] },
      { id: 'trends', name: 'Trends', description: '', keywords: ['trend', 'month'] },
    ];
    const plan = planQueries(sqlDialect('duckdb'), [table], areas);
    expect(plan.length).toBeGreaterThan(3);
    for (const query of plan) {
      expect(query.purpose).toContain('on a 2 % sample of 50,000,000 rows');
      expect(query.sql).toMatch(/USING SAMPLE 2 PERCENT \((system|bernoulli), 7\)/);
      const result = await warehouse.query(query.sql);
      expect(result.columns.length).toBeGreaterThan(0);
    }
  });
});

describe('when a mining statement runs past the statement timeout', () => {
  it('records it as a timeout, which the run counts against a full run type', async () => {
    const runner = createMiningQueryRunner(warehouse, { maxQueries: 5, maxDurationMs: 60_000, queryTimeoutMs: 100, maxRows: 10 });
    const rows = await runner.run(
      'endless',
      'SELECT count(*) AS n FROM range(1000000000) a(x), range(1000000) b(y) WHERE (a.x * b.y) % 7 = 3',
    );
    expect(rows).toBeUndefined();
    expect(runner.records[0]).toMatchObject({ label: 'endless', timedOut: true });
    expect(runner.records[0]?.error).toMatch(/timed out after 100 ms/);
  });
});
