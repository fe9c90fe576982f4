import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOfflineAnalyst } from '../../../src/llm/offline-analyst/index.js';
import { discoverSchema } from '../../../src/schema/schema-discovery.js';
import { generateDemoWarehouse } from '../../../src/demo/index.js';
import { openWarehouse } from '../../../src/warehouse/index.js';
import type { Warehouse } from '../../../src/warehouse/port.js';
import { explorationSetting, explore, type ExplorationSetting, type ExplorationTranscript } from './exploration-harness.js';

const MAX_STEPS = 40;
let workDir: string;
let warehouse: Warehouse;
let setting: ExplorationSetting;
let transcript: ExplorationTranscript;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'assay-offline-exploration-'));
  const demo = await generateDemoWarehouse({ kind: 'ecommerce', out: join(workDir, 'shop.duckdb') });
  warehouse = await openWarehouse(`duckdb:${demo.path}`);
  setting = explorationSetting('ecommerce', await discoverSchema(warehouse), warehouse.dialect, MAX_STEPS, 0);
  transcript = await explore(createOfflineAnalyst(), setting, warehouse, MAX_STEPS);
});

afterAll(async () => {
  await warehouse?.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe('when the analyst explores the e-commerce demo warehouse', () => {
  it('looks tables up before its first query, within the per-call and per-run limits', () => {
    const firstQuery = transcript.steps.findIndex((step) => step.action === 'query');
    const lookups = transcript.steps.filter((step) => step.action === 'lookup_schema');
    expect(lookups.length).toBeGreaterThan(0);
    expect(transcript.steps.findIndex((step) => step.action === 'lookup_schema')).toBeLessThan(firstQuery);
    for (const lookup of lookups) expect(lookup.tables?.length ?? 0).toBeLessThanOrEqual(10);
    expect(transcript.lookupCalls).toBeLessThanOrEqual(2);
  });

  it('writes SQL that runs: every query succeeds, so no column was guessed', () => {
    const queries = transcript.steps.filter((step) => step.action === 'query');
    expect(queries.length).toBeGreaterThan(20);
    expect(queries.filter((step) => step.error !== undefined).map((step) => `${step.step}: ${step.error}`)).toEqual([]);
  });

  it('keeps every result small enough for the digest to show all its rows, except the one-row profile', () => {
    for (const step of transcript.steps.filter((candidate) => candidate.action === 'query'))
      expect(step.row_count ?? 0).toBeLessThanOrEqual(20);
  });

  it('names the area first in every purpose, and only areas the pack has', () => {
    const areaIds = new Set(setting.areas.map((area) => area.id));
    const purposes = transcript.steps
      .filter((step) => step.action === 'query')
      .map((step) => step.query_purpose)
      .slice(1);
    for (const purpose of purposes) expect(areaIds.has(purpose.split(':')[0] ?? '')).toBe(true);
    expect(new Set(purposes.map((purpose) => purpose.split(':')[0])).size).toBe(areaIds.size);
  });

  it('never runs the same query twice', () => {
    const sql = transcript.steps.filter((step) => step.action === 'query').map((step) => step.query);
    expect(new Set(sql).size).toBe(sql.length);
  });

  it('finishes with done once its plan is spent, inside the step budget', () => {
    expect(transcript.steps.length).toBeLessThanOrEqual(MAX_STEPS);
    const last = transcript.steps.at(-1);
    if (transcript.steps.length < MAX_STEPS) expect(last?.action).toBe('done');
  });
});

describe('when the step budget is small', () => {
  it('stops at the budget and spends it on queries rather than an early done', async () => {
    const short = await explore(
      createOfflineAnalyst(),
      explorationSetting('ecommerce', setting.tables, warehouse.dialect, 8, 0),
      warehouse,
      8,
    );
    expect(short.steps).toHaveLength(8);
    expect(short.steps.filter((step) => step.action === 'query')).toHaveLength(7);
  });
});

describe('when the same exploration runs twice', () => {
  it('sends byte-identical actions', async () => {
    const again = await explore(
      createOfflineAnalyst(),
      explorationSetting('ecommerce', setting.tables, warehouse.dialect, 12, 0),
      warehouse,
      12,
    );
    const first = await explore(
      createOfflineAnalyst(),
      explorationSetting('ecommerce', setting.tables, warehouse.dialect, 12, 0),
      warehouse,
      12,
    );
    expect(again.replies).toEqual(first.replies);
  });
});

describe('when the plan runs out before the required minimum of steps', () => {
  it('signals done, takes the nudge, and keeps answering with valid actions until it may finish', async () => {
    // a lookup-sized table: nothing to split or follow over time, so the plan is spent long before the minimum
    const tiny = setting.tables.filter((table) => table.qualified === 'main.marketing_channels');
    const run = await explore(createOfflineAnalyst(), explorationSetting('ecommerce', tiny, warehouse.dialect, 10, 6), warehouse, 10, 6);
    const rejected = run.steps.filter((step) => step.action === 'complete_rejected');
    expect(rejected.length).toBeGreaterThan(0);
    expect(rejected.every((step) => step.step < 6)).toBe(true);
    expect(run.steps.at(-1)?.action).toBe('done');
    expect(run.steps.at(-1)?.step).toBeGreaterThanOrEqual(6);
  });
});
