/**
 * The same exploration on PostgreSQL: the e-commerce demo copied from DuckDB into a throwaway cluster,
 * explored through the read-only role. Every query the analyst writes for the PostgreSQL dialect must
 * run, and its findings must recount exactly there too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toInsights } from '../../../src/discovery/phases/analyze-area.js';
import { parseInsights } from '../../../src/discovery/parsing/output-parser.js';
import { extractCount } from '../../../src/discovery/phases/verify-insight.js';
import { createOfflineAnalyst } from '../../../src/llm/offline-analyst/index.js';
import { discoverSchema } from '../../../src/schema/discovery.js';
import { generateDemoWarehouse } from '../../../src/demo/index.js';
import { openWarehouse } from '../../../src/warehouse/index.js';
import type { Warehouse } from '../../../src/warehouse/port.js';
import { copyDemo } from '../../support/postgres-demo.js';
import { startTestPostgres, type TestPostgresStart } from '../../support/postgres.js';
import {
  analysisRequest,
  explorationSetting,
  explore,
  verificationRequest,
  verificationSql,
  type ExplorationSetting,
  type ExplorationTranscript,
} from './exploration-harness.js';

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

  it('finds the mobile checkout abandonment and recounts every insight exactly', async () => {
    const brain = createOfflineAnalyst();
    const parsed = parseInsights(await brain(analysisRequest(setting, 'conversion', transcript.steps)));
    if (!parsed.ok) throw new Error(parsed.reason);
    const citable = new Set(transcript.steps.filter((step) => step.action === 'query' && !step.error).map((step) => step.step));
    const { insights } = toInsights({ id: 'conversion' }, parsed.items, citable, '2025-01-01T00:00:00.000Z');
    expect(insights.some((insight) => /mobile/i.test(insight.name) && /abandon/i.test(insight.name))).toBe(true);
    for (const insight of insights) {
      const result = await warehouse.query(verificationSql(await brain(verificationRequest(setting, insight, transcript.steps))), {
        maxRows: 10,
      });
      expect({ id: insight.id, count: extractCount(result) }).toEqual({ id: insight.id, count: insight.affected_count });
    }
  });
});
