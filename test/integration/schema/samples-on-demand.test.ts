/**
 * Samples on demand, end to end on a real DuckDB: a discovery run (the offline analyst exploring, mining,
 * verification) reads sample rows only of the tables its lookups show, each once; a second run, and a
 * second process over the same store, read none from the warehouse.
 */
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, describe, expect, it } from 'vitest';
import { createSchemaSource } from '../../../src/discovery/schema-source.js';
import { runDiscoveryLocally } from '../../../src/fleet/local/runner.js';
import { createOfflineAnalyst } from '../../../src/llm/offline-analyst/index.js';
import { silentLogger } from '../../../src/logging/index.js';
import type { Warehouse } from '../../../src/warehouse/port.js';
import { createHarness, createShopWarehouse, type Harness } from '../../support/engine-harness.js';
import { tempDir } from '../../support/temp-dir.js';

/** Tables no e-commerce lookup has a reason to show. */
const UNRELATED_TABLES = 30;

/** The shop, plus UNRELATED_TABLES sensor tables. */
async function shopWithUnrelatedTables(): Promise<string> {
  const path = join(tempDir('assay-samples-on-demand-'), 'shop.duckdb');
  await createShopWarehouse(path);
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  for (let index = 0; index < UNRELATED_TABLES; index += 1)
    await connection.run(
      `CREATE TABLE sensor_reading_${String(index).padStart(2, '0')} AS SELECT i AS reading_id, i * 0.5 AS celsius FROM range(1, 21) t(i)`,
    );
  connection.closeSync();
  instance.closeSync();
  return path;
}

/** The warehouse, with every table read through `sampleTables` recorded (one entry per table per read). */
function countingSamples(warehouse: Warehouse, sampled: string[]): Warehouse {
  return new Proxy(warehouse, {
    get(target, property) {
      if (property === 'sampleTables' && target.sampleTables) {
        const sampleTables = target.sampleTables.bind(target);
        return (...args: Parameters<NonNullable<Warehouse['sampleTables']>>) => {
          sampled.push(...args[0].map((table) => table.qualified));
          return sampleTables(...args);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('when a discovery run looks tables up', () => {
  it('reads sample rows of the looked-up tables only, once each, and a later run or process reads none', async () => {
    const sampled: string[] = [];
    harness = await createHarness(createOfflineAnalyst(), {
      warehousePath: await shopWithUnrelatedTables(),
      wrapWarehouse: (warehouse) => countingSamples(warehouse, sampled),
    });
    const first = await harness.newRun({ maxSteps: 6 });
    await runDiscoveryLocally(harness.deps, first.id, { concurrency: 1 });

    const steps = await harness.deps.store.listSteps(first.id);
    const lookups = steps.filter((step) => step.action === 'lookup_schema');
    expect(lookups.length, 'the analyst looked tables up').toBeGreaterThan(0);
    const shown = new Set(
      lookups.flatMap((step) => [...(step.result_text ?? '').matchAll(/Schema for ([^ ]+) \(/g)].map((match) => match[1] ?? '')),
    );
    expect(shown).toContain('main.orders');
    expect(shown).toContain('main.sessions');
    // the analyst looks up its most relevant tables, ten at a time: most of the warehouse is never shown
    expect(shown.size).toBeLessThanOrEqual(10);
    expect(lookups.every((step) => !step.result_text?.includes('Sample rows: none available'))).toBe(true);
    // every sample read was a table a lookup showed, and no table was read twice
    expect([...sampled].sort()).toEqual([...shown].sort());
    expect(sampled.filter((table) => table.startsWith('main.sensor_reading_')).length).toBeLessThan(UNRELATED_TABLES);

    const second = await harness.newRun({ maxSteps: 6 });
    await runDiscoveryLocally(harness.deps, second.id, { concurrency: 1 });
    expect((await harness.deps.store.listSteps(second.id)).some((step) => step.action === 'lookup_schema')).toBe(true);
    expect(sampled).toHaveLength(shown.size);

    // another process: a new schema source over the same store (and a warehouse that counts for itself)
    const otherSampled: string[] = [];
    const other = countingSamples(harness.deps.warehouse, otherSampled);
    const { config, store, embedder, vectorIndex } = harness.deps;
    const third = await harness.newRun({ maxSteps: 6 });
    await runDiscoveryLocally(
      {
        ...harness.deps,
        warehouse: other,
        schema: createSchemaSource({ config, store, warehouse: other, embedder, vectorIndex, logger: silentLogger }),
      },
      third.id,
      { concurrency: 1 },
    );
    const thirdLookups = (await harness.deps.store.listSteps(third.id)).filter((step) => step.action === 'lookup_schema');
    expect(thirdLookups.some((step) => step.result_text?.includes('Sample rows ('))).toBe(true);
    expect(otherSampled).toEqual([]);
  });
});
