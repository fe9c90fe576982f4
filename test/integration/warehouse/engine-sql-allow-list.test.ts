/**
 * Every function the engine's own SQL calls is on the dialect's allow-list: SQL collected from the
 * engine's real generators (a discovery run's exploration and claim recounts, the demo pattern checks,
 * the offline analyst on PostgreSQL, the mining stage and its recounts on both engines) must parse and
 * pass the guard. A producer is one entry of `PRODUCERS`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClaimSql } from '../../../src/discovery/claims/claim-sql.js';
import { loadPack } from '../../support/packs.js';
import { demoDatasetFor } from '../../../src/demo/datasets/index.js';
import { DEMO_KINDS, generateDemoWarehouse } from '../../../src/demo/index.js';
import type { DiscoveryResult, ExplorationStep } from '../../../src/domain/index.js';
import { createOfflineAnalyst } from '../../../src/llm/offline-analyst/index.js';
import { discoverSchema } from '../../../src/schema/schema-discovery.js';
import type { TableSchema, Warehouse } from '../../../src/warehouse/port.js';
import { guardSql, openWarehouse, type SqlDialect } from '../../../src/warehouse/index.js';
import { sqlSyntaxFor } from '../../../src/warehouse/sql-syntax/index.js';
import { explorationSetting, explore } from '../offline-analyst/exploration-harness.js';
import { runDemoDiscovery } from '../offline-analyst/demo-discovery.js';
import { mineAndCheck } from '../../support/mine-and-check.js';
import { copyDemo } from '../../support/postgres-demo.js';
import { startTestPostgres } from '../../support/postgres.js';

const postgres = await startTestPostgres();
if (!postgres.available) console.log(`skipping the PostgreSQL producers: ${postgres.reason}`);

/** What the producers read: one offline discovery run on the e-commerce demo, done once. */
interface Sources {
  steps: ExplorationStep[];
  result: DiscoveryResult;
  tables: TableSchema[];
  postgresExploration: string[];
  /** Every statement the mining stage and the recounts of its first findings sent, per engine. */
  mining: Partial<Record<SqlDialect, string[]>>;
}

interface SqlProducer {
  name: string;
  dialects: readonly SqlDialect[];
  /** Skipped with this reason when set. */
  unavailable?: string | undefined;
  collect(sources: Sources, dialect: SqlDialect): string[];
}

function executedSql(steps: readonly ExplorationStep[]): string[] {
  return steps.flatMap((step) => (step.action === 'query' && step.executed_query !== undefined ? [step.executed_query] : []));
}

const PRODUCERS: SqlProducer[] = [
  { name: "the offline analyst's exploration queries", dialects: ['duckdb'], collect: (sources) => executedSql(sources.steps) },
  {
    name: 'claim recounts of the insights of a discovery run',
    dialects: ['duckdb', 'postgres'],
    // built in the dialect checked: a duration is epoch() on DuckDB and extract(epoch …) on PostgreSQL
    collect: (sources, dialect) =>
      sources.result.insights.flatMap((insight) => {
        if (insight.claim === undefined) return [];
        const built = buildClaimSql(insight.claim, sources.tables, sqlSyntaxFor(dialect));
        return built.ok ? [built.sql] : [];
      }),
  },
  {
    name: "the demo warehouses' planted-pattern checks",
    dialects: ['duckdb'],
    collect: () => DEMO_KINDS.flatMap((kind) => demoDatasetFor(kind).patterns.map((pattern) => pattern.check.sql)),
  },
  { name: 'the mining stage and the recounts of its findings', dialects: ['duckdb'], collect: (sources) => sources.mining.duckdb ?? [] },
  {
    name: 'the mining stage and the recounts of its findings on PostgreSQL',
    dialects: ['postgres'],
    unavailable: postgres.available ? undefined : postgres.reason,
    collect: (sources) => sources.mining.postgres ?? [],
  },
  {
    name: "the offline analyst's exploration queries in the PostgreSQL dialect",
    dialects: ['postgres'],
    unavailable: postgres.available ? undefined : postgres.reason,
    collect: (sources) => sources.postgresExploration,
  },
];

/** The warehouse with every statement sent to it recorded. */
function recording(warehouse: Warehouse): { warehouse: Warehouse; statements: string[] } {
  const statements: string[] = [];
  const recorded: Warehouse = new Proxy(warehouse, {
    get(target, property) {
      if (property === 'query')
        return (sql: string, options?: Parameters<Warehouse['query']>[1]) => {
          statements.push(sql);
          return target.query(sql, options);
        };
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { warehouse: recorded, statements };
}

/** Mines the warehouse with the e-commerce pack's vocabulary and recounts the first findings; returns what was sent. */
async function miningStatements(warehouse: Warehouse): Promise<string[]> {
  const recorder = recording(warehouse);
  await mineAndCheck(recorder.warehouse, { mining: loadPack('ecommerce').mining, check: 25 });
  return recorder.statements;
}

let sources: Sources;
let workDir: string;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'assay-engine-sql-'));
  const discovery = await runDemoDiscovery('ecommerce', 24);
  const demo = await generateDemoWarehouse({ kind: 'ecommerce', out: join(workDir, 'shop.duckdb') });
  const duckdb = await openWarehouse(`duckdb:${demo.path}`);
  const tables = await discoverSchema(duckdb);
  const mining: Sources['mining'] = { duckdb: await miningStatements(duckdb) };
  let postgresExploration: string[] = [];
  if (postgres.available) {
    await copyDemo(duckdb, postgres.server.adminUrl);
    const warehouse = await openWarehouse(postgres.server.readerUrl);
    try {
      const setting = explorationSetting('ecommerce', await discoverSchema(warehouse), 'postgres', 24, 0);
      postgresExploration = executedSql((await explore(createOfflineAnalyst(), setting, warehouse, 24)).steps);
      mining.postgres = await miningStatements(warehouse);
    } finally {
      await warehouse.close();
    }
  }
  await duckdb.close();
  sources = { steps: discovery.steps, result: discovery.result, tables, postgresExploration, mining };
}, 300_000);

afterAll(async () => {
  if (postgres.available) await postgres.server.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe.each(PRODUCERS.flatMap((producer) => producer.dialects.map((dialect) => ({ ...producer, dialect }))))(
  'SQL the engine writes: $name ($dialect)',
  (producer) => {
    it.skipIf(producer.unavailable !== undefined)('parses and passes the guard, every function on the allow-list', async () => {
      const statements = producer.collect(sources, producer.dialect);
      expect(statements.length).toBeGreaterThan(0);
      const refused: string[] = [];
      for (const sql of statements) {
        const verdict = await guardSql(sql, producer.dialect);
        if (!verdict.allowed) refused.push(`${verdict.reason}\n  in: ${sql.slice(0, 300)}`);
      }
      expect(refused).toEqual([]);
    });
  },
);
