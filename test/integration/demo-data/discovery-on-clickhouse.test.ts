/**
 * Discovery on ClickHouse as on DuckDB: the e-commerce demo loaded into the throwaway ClickHouse here
 * (Debian's 18.16: no CTE subqueries, no window functions, one JOIN per SELECT) and discovered with
 * the offline analyst. What a user with a real model gets from the engine must hold there: every mining
 * statement runs, mining finds every planted pattern DuckDB's run finds, with the same verdict, and
 * every claim the verifier recounts gives a verdict (none errors).
 *
 * The analyst's own exploration SQL is a stand-in for a model and is not checked here: on 18.16 its
 * window functions and multi-JOIN summaries still fail (docs/warehouses.md, "The same answers on every
 * engine"). Both runs take one exploration step; mining and verification run whatever the count.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoWarehouse, loadDemoInto } from '../../../src/demo/index.js';
import { startTestClickhouse } from '../../support/clickhouse.js';
import { discoverOn, type EngineDiscovery } from '../../support/engine-discovery.js';
import { tempDir } from '../../support/temp-dir.js';

/** One exploration step: what is compared is mining and verification, which run whatever the count. */
const MAX_STEPS = 1;

const clickhouse = await startTestClickhouse();
if (!clickhouse.available) console.log(`skipping discovery on ClickHouse: ${clickhouse.reason}`);

let duckdb: EngineDiscovery;
let onClickhouse: EngineDiscovery;

beforeAll(async () => {
  if (!clickhouse.available) return;
  const demo = await generateDemoWarehouse({ kind: 'ecommerce', out: join(tempDir('assay-discovery-clickhouse-'), 'shop.duckdb') });
  await loadDemoInto(demo.path, clickhouse.server.adminUrl);
  [duckdb, onClickhouse] = await Promise.all([
    discoverOn(`duckdb:${demo.path}`, 'ecommerce', demo.truths, MAX_STEPS),
    discoverOn(clickhouse.server.readerUrl, 'ecommerce', demo.truths, MAX_STEPS),
  ]);
}, 300_000);

afterAll(async () => {
  if (clickhouse.available) await clickhouse.server.stop();
});

const verdicts = (run: EngineDiscovery) =>
  run.score.patterns.map((match) => ({ pattern: match.pattern, found: match.found, checked: match.claim_checked }));

describe.skipIf(!clickhouse.available)(
  `the e-commerce demo discovered on ClickHouse ${clickhouse.available ? clickhouse.server.version : ''}`,
  () => {
    it('runs every mining statement without an error, a timeout or a skip', () => {
      const mining = onClickhouse.run.mining;
      expect(mining?.status).toBe('completed');
      expect(mining?.queries).toBeGreaterThan(0);
      expect({ failed: mining?.failed_queries, skipped: mining?.skipped_queries, notes: mining?.notes }).toEqual({
        failed: 0,
        skipped: 0,
        notes: [],
      });
    });

    it('finds the planted patterns DuckDB finds, each with the same verdict', () => {
      expect(duckdb.score.found).toBeGreaterThan(0);
      expect(verdicts(onClickhouse)).toEqual(verdicts(duckdb));
    });

    it('recounts every claim to a verdict, as on DuckDB', () => {
      const statuses = (run: EngineDiscovery) => run.result.insights.map((insight) => insight.validation?.status);
      expect(statuses(onClickhouse).length).toBeGreaterThan(0);
      expect(statuses(onClickhouse).filter((status) => status === 'error' || status === undefined)).toEqual([]);
    });
  },
);
