/**
 * Pack generation against real DuckDB warehouses: the e-commerce demo (a valid pack keyed by its real
 * table and column names) and a small IT-incident table (durations and segments, no purchase funnel),
 * through `assay pack generate`, and `assay run` without `--pack` falling back to the general pack.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generatePack } from '../../../src/discovery/packs/generation/index.js';
import { generalPack, loadPack } from '../../support/packs.js';
import { discoverSchema } from '../../../src/schema/index.js';
import { generateDemoWarehouse } from '../../../src/demo/index.js';
import { openWarehouse } from '../../../src/warehouse/index.js';
import type { TableSchema } from '../../../src/warehouse/port.js';
import { runCli } from '../../support/run-cli.js';

/** What a purchase-funnel pack talks about; none of it belongs to an incident table's pack. */
const SHOP_WORDS = /funnel|purchase|checkout|cart|\border|revenue|customer|basket|conversion/i;

/** 2,000 incidents: category, state, opened/closed timestamps (a tenth still open), priority, assignee, location, free text. */
async function createIncidentWarehouse(path: string): Promise<void> {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  await connection.run(`
    CREATE TABLE incidents AS
      SELECT i AS incident_id,
             (['network', 'hardware', 'software', 'access'])[1 + i % 4] AS category,
             (['new', 'in_progress', 'resolved', 'closed'])[1 + (i * 7) % 4] AS state,
             TIMESTAMP '2024-01-01' + to_hours(CAST(i * 3 AS INTEGER)) AS opened_at,
             CASE WHEN i % 10 = 0 THEN NULL
                  ELSE TIMESTAMP '2024-01-01' + to_hours(CAST(i * 3 + 4 + (i % 4) * 20 AS INTEGER)) END AS closed_at,
             (['1 - critical', '2 - high', '3 - moderate', '4 - low'])[1 + (i * 3) % 4] AS priority,
             'team_' || CAST(i % 6 AS VARCHAR) AS assignee,
             (['Berlin', 'Lisbon', 'Austin'])[1 + i % 3] AS location,
             'The user reports that the VPN client drops the connection every few minutes since update ' || CAST(i AS VARCHAR) AS description
      FROM range(1, 2001) t(i)
  `);
  connection.closeSync();
  instance.closeSync();
}

async function describedTables(path: string): Promise<TableSchema[]> {
  const warehouse = await openWarehouse(`duckdb:${path}`);
  try {
    return await discoverSchema(warehouse);
  } finally {
    await warehouse.close();
  }
}

function realNames(tables: readonly TableSchema[]): Set<string> {
  return new Set(tables.flatMap((table) => [table.name, ...table.columns.map((column) => column.name)]).map((name) => name.toLowerCase()));
}

describe('pack generation on real warehouses', () => {
  let dir: string;
  let incidentsPath: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'assay-pack-generate-'));
    vi.stubEnv('ASSAY_DATA_DIR', join(dir, 'data'));
    vi.stubEnv('LOG_LEVEL', 'warn');
    incidentsPath = join(dir, 'incidents.duckdb');
    await createIncidentWarehouse(incidentsPath);
  });
  afterAll(() => {
    vi.unstubAllEnvs();
    rmSync(dir, { recursive: true, force: true });
  });

  it('proposes a valid pack for the e-commerce demo whose keywords are its real table and column names', async () => {
    const demo = await generateDemoWarehouse({ kind: 'ecommerce', out: join(dir, 'shop.duckdb') });
    const tables = await describedTables(demo.path);
    const warehouse = await openWarehouse(`duckdb:${demo.path}`);
    const generated = await generatePack({ warehouse, slug: 'shop', basePack: generalPack() }).finally(() => warehouse.close());
    expect(generated.generator).toBe('offline');
    expect(generated.pack.areas.length).toBeGreaterThanOrEqual(3);
    expect(generated.pack.areas.length).toBeLessThanOrEqual(6);
    const names = realNames(tables);
    for (const area of generated.pack.areas) {
      expect(area.keywords.length, area.id).toBeGreaterThanOrEqual(3);
      for (const keyword of area.keywords) expect(names, `${area.id}: ${keyword}`).toContain(keyword);
    }
    const durations = generated.pack.areas.find((area) => area.id === 'durations');
    expect(durations?.keywords).toEqual(expect.arrayContaining(['ordered_at', 'delivered_at']));
  });

  it('writes a pack for an incident table with `assay pack generate`: durations and segments, no purchase funnel', async () => {
    const out = join(dir, 'incidents-pack');
    const result = await runCli([
      'pack',
      'generate',
      '--warehouse',
      `duckdb:${incidentsPath}`,
      '--goal',
      'Which incidents take longest to close?',
      '--out',
      out,
      '--json',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as { slug: string; generator: string; areas: Array<{ id: string }> };
    expect(summary).toMatchObject({ slug: 'incidents-pack', generator: 'offline' });
    const pack = loadPack(out);
    expect(pack.areas.map((area) => area.id)).toEqual(expect.arrayContaining(['durations', 'segments']));
    expect(pack.areas.find((area) => area.id === 'durations')?.keywords).toEqual(expect.arrayContaining(['opened_at', 'closed_at']));
    for (const area of pack.areas) expect(`${area.name} ${area.description} ${area.keywords.join(' ')}`, area.id).not.toMatch(SHOP_WORDS);
    expect(readFileSync(join(out, 'prompts', 'analysis_durations.md'), 'utf8')).toContain('main.incidents: opened_at → closed_at');

    const again = await runCli(['pack', 'generate', '--warehouse', `duckdb:${incidentsPath}`, '--out', out]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/exists and is not empty.*--force/);
  });

  it('runs on the general pack when no --pack is given and no domain pack matches, and says so', async () => {
    const result = await runCli([
      'run',
      '--warehouse',
      `duckdb:${incidentsPath}`,
      '--max-steps',
      '6',
      '--out',
      join(dir, 'runs'),
      '--quiet',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /no --pack given and no domain pack matches this warehouse \(best: \w+, 0 of 3 areas\): using the general pack "general"/,
    );
    const runJson = result.stdout.match(/report: (.*)report\.html/)?.[1];
    const run = JSON.parse(readFileSync(join(runJson ?? '', 'run.json'), 'utf8')) as { settings: Record<string, unknown> };
    expect(run.settings).toMatchObject({ pack: 'general', pack_version: '1.0.0', pack_hash: expect.stringMatching(/^[0-9a-f]{16}$/) });
  });

  it('runs a generated pack from its directory and records it', async () => {
    const out = join(dir, 'incidents-pack');
    const result = await runCli([
      'run',
      '--pack',
      out,
      '--warehouse',
      `duckdb:${incidentsPath}`,
      '--max-steps',
      '6',
      '--out',
      join(dir, 'runs'),
      '--quiet',
    ]);
    expect(result.code).toBe(0);
    const runDir = result.stdout.match(/report: (.*)report\.html/)?.[1];
    const run = JSON.parse(readFileSync(join(runDir ?? '', 'run.json'), 'utf8')) as {
      project_id: string;
      settings: Record<string, unknown>;
    };
    // the project of this warehouse and pack: named after both, unique per warehouse
    expect(run.project_id).toMatch(/^incidents-pack-incidents-[0-9a-f]{6}$/);
    expect(run.settings).toMatchObject({ pack: out, pack_version: '1.0.0' });
  });
});
