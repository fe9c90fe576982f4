/**
 * The same exploration on PostgreSQL: the e-commerce demo copied from DuckDB into a throwaway cluster,
 * explored through the read-only role. Every query the analyst writes for the PostgreSQL dialect must
 * run; the engine mines it there with PostgreSQL SQL, finds the planted patterns, and every finding's
 * claim holds when recounted there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPack } from '../../support/packs.js';
import { createOfflineAnalyst } from '../../../src/llm/offline-analyst/index.js';
import { discoverSchema } from '../../../src/schema/schema-discovery.js';
import { generateDemoWarehouse } from '../../../src/demo/index.js';
import { openWarehouse } from '../../../src/warehouse/index.js';
import type { Warehouse } from '../../../src/warehouse/port.js';
import { copyDemo } from '../../support/postgres-demo.js';
import { startTestPostgres, type TestPostgresStart } from '../../support/postgres.js';
import { type MinedAndChecked, mineAndCheck } from '../../support/mine-and-check.js';
import { explorationSetting, explore, type ExplorationSetting, type ExplorationTranscript } from './exploration-harness.js';

const started: TestPostgresStart = await startTestPostgres();
if (!started.available) console.log(`skipping the PostgreSQL dialect tests: ${started.reason}`);

let workDir: string;
let warehouse: Warehouse;
let setting: ExplorationSetting;
let transcript: ExplorationTranscript;

beforeAll(async () => {
  if (!started.available) return;
  workDir = mkdtempSync(join(tmpdir(), 'assay-offline-pg-'));
  const demo = await generateDemoWarehouse({ kind: 'ecommerce', out: join(workDir, 'shop.duckdb') });
  const duckdb = await openWarehouse(`duckdb:${demo.path}`);
  await copyDemo(duckdb, started.server.adminUrl).finally(() => duckdb.close());
  warehouse = await openWarehouse(started.server.readerUrl);
  setting = explorationSetting('ecommerce', await discoverSchema(warehouse), warehouse.dialect, 30, 0);
  transcript = await explore(createOfflineAnalyst(), setting, warehouse, 30);
}, 120_000);

afterAll(async () => {
  await warehouse?.close();
  if (started.available) await started.server.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe.skipIf(!started.available)('when the analyst explores the e-commerce demo on PostgreSQL', () => {
  it('writes PostgreSQL that runs: every query succeeds', () => {
    expect(setting.system).toContain('SQL dialect: PostgreSQL');
    const queries = transcript.steps.filter((step) => step.action === 'query');
    expect(queries.length).toBeGreaterThan(20);
    expect(queries.filter((step) => step.error !== undefined).map((step) => `${step.step}: ${step.error}`)).toEqual([]);
  });

  it('mines the planted patterns with PostgreSQL SQL, and every finding holds when recounted there', async () => {
    const mined: MinedAndChecked = await mineAndCheck(warehouse, { mining: loadPack('ecommerce').mining, check: 40 });
    expect(mined.outcome.queries.filter((query) => query.error).map((query) => `${query.label}: ${query.error}`)).toEqual([]);
    const texts = mined.findings.map((finding) => mined.text(finding));
    expect(texts.some((text) => /device is mobile have a higher checkout abandonment rate/.test(text))).toBe(true);
    expect(texts.some((text) => /region is Southeast have a higher share with order status cancelled/.test(text))).toBe(true);
    expect(texts.some((text) => /category is Electronics have a higher share with a refund/.test(text))).toBe(true);
    expect(mined.unconfirmed).toEqual([]);
  }, 120_000);
});
