/**
 * The record-level outlier finder (and the drivers-of-a-change finder) on a table with planted patterns,
 * on DuckDB and — when a PostgreSQL server can be started — on PostgreSQL: the planted facts are found,
 * their claims confirmed by the verifier's own recount, and false versions of them rejected or adjusted.
 *
 * 2,400 orders over January–June 2024 in four regions, amounts spread evenly from 50 to 449, and:
 * - three orders of 24,000–26,000 (a few records far beyond the rest);
 * - 300 extra West orders in June (the West accounts for the June rise in orders).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkClaim } from '../../../src/discovery/claims/check-claim.js';
import { textDisagreements } from '../../../src/discovery/claims/text-check.js';
import { renderClaim } from '../../../src/discovery/claims/claim-text.js';
import { type Claim, type MinedFinding, claimSchema } from '../../../src/domain/index.js';
import { discoverSchema } from '../../../src/schema/schema-discovery.js';
import { openWarehouse } from '../../../src/warehouse/index.js';
import type { TableSchema, Warehouse } from '../../../src/warehouse/port.js';
import { copyDemo } from '../../support/postgres-demo.js';
import { startTestPostgres, type TestPostgresStart } from '../../support/postgres.js';
import { type MinedAndChecked, mineAndCheck } from '../../support/mine-and-check.js';

const started: TestPostgresStart = await startTestPostgres();
if (!started.available) console.log(`skipping the PostgreSQL outlier and driver tests: ${started.reason}`);

let workDir: string;
const engines: Record<string, { warehouse: Warehouse; tables: TableSchema[]; mined: MinedAndChecked } | undefined> = {};

async function plantedWarehouse(path: string): Promise<void> {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  await connection.run(`
    CREATE TABLE orders AS
      SELECT i AS order_id,
             ['North', 'South', 'East', 'West'][CAST((i // 6) % 4 AS INTEGER) + 1] AS region,
             TIMESTAMP '2024-01-01' + to_months(CAST(i % 6 AS INTEGER)) + to_days(CAST((i // 6) % 28 AS INTEGER)) AS ordered_at,
             CASE WHEN i = 6 THEN 25000.0 WHEN i = 12 THEN 26000.0 WHEN i = 18 THEN 24000.0
                  ELSE CAST(50 + (i * 37) % 400 AS DOUBLE) END AS amount_usd
      FROM range(1, 2401) t(i)
    UNION ALL
      SELECT 10000 + i, 'West', TIMESTAMP '2024-06-01' + to_days(CAST(i % 28 AS INTEGER)), CAST(50 + (i * 53) % 400 AS DOUBLE)
      FROM range(1, 301) t(i);
  `);
  connection.closeSync();
  instance.closeSync();
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'assay-outliers-'));
  const path = join(workDir, 'shop.duckdb');
  await plantedWarehouse(path);
  const duckdb = await openWarehouse(`duckdb:${path}`);
  engines.duckdb = { warehouse: duckdb, tables: await discoverSchema(duckdb), mined: await mineAndCheck(duckdb, { check: 60 }) };
  if (started.available) {
    await copyDemo(duckdb, started.server.adminUrl);
    const postgres = await openWarehouse(started.server.readerUrl);
    engines.postgres = { warehouse: postgres, tables: await discoverSchema(postgres), mined: await mineAndCheck(postgres, { check: 60 }) };
  }
}, 180_000);

afterAll(async () => {
  await engines.duckdb?.warehouse.close();
  await engines.postgres?.warehouse.close();
  if (started.available) await started.server.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

function only(findings: readonly MinedFinding[], kind: MinedFinding['kind']): MinedFinding[] {
  return findings.filter((finding) => finding.kind === kind);
}

async function verdictOf(engine: string, claim: Claim) {
  const setting = engines[engine];
  if (!setting) throw new Error(`no ${engine} warehouse`);
  return checkClaim({ warehouse: setting.warehouse, tables: setting.tables, claim, minSupport: 10, timeoutMs: 30_000 });
}

for (const engine of ['duckdb', 'postgres'] as const) {
  describe.skipIf(engine === 'postgres' && !started.available)(`when the planted orders are mined on ${engine}`, () => {
    it('finds the three huge orders as outliers of the order amount, and the recount confirms them', () => {
      const mined = engines[engine]?.mined as MinedAndChecked;
      expect(mined.outcome.queries.filter((query) => query.error).map((query) => `${query.label}: ${query.error}`)).toEqual([]);
      const outliers = only(mined.findings, 'outlier');
      expect(outliers.length).toBeGreaterThanOrEqual(1);
      expect(outliers.length).toBeLessThanOrEqual(2);
      const high = outliers.find((finding) => finding.claim.direction === 'higher');
      expect(high?.claim).toMatchObject({ n: { segment: 3, comparison: 2697 }, segment: { column: 'amount_usd' } });
      expect(high?.claim.value).toBeCloseTo(25_000, 6);
      expect(high?.claim.share_of_total).toBeGreaterThan(0.1);
      expect(Number(high?.claim.segment?.from)).toBeGreaterThan(450);
      expect(Number(high?.claim.segment?.from)).toBeLessThanOrEqual(24_000);
      expect(mined.text(high as MinedFinding)).toMatch(/^3 orders have an amount of \$[\d,.]+ or more, far above the rest/);
      expect(mined.unconfirmed.filter((line) => /outlier|far (above|below)/.test(line))).toEqual([]);
    });

    it('finds the West behind the June rise in orders, and the recount confirms it', () => {
      const mined = engines[engine]?.mined as MinedAndChecked;
      const drivers = only(mined.findings, 'contribution');
      const west = drivers.find((finding) => finding.claim.segment?.value === 'West' && finding.claim.metric.kind === 'count');
      expect(west?.claim).toMatchObject({
        direction: 'higher',
        value: 300,
        comparison_value: 300,
        window: { from: '2024-06-01', to: '2024-07-01' },
        baseline: { from: '2024-05-01', to: '2024-06-01' },
        n: { segment: 500 },
      });
      expect(mined.text(west as MinedFinding)).toMatch(
        /^Number of orders per month rose by 300 from May 2024 to June 2024; orders whose region is West account for 100% of the rise \(300\)/,
      );
      // a driver carries at most all of the change, and is a group of the records, not a calendar position
      expect(drivers.every((finding) => finding.claim.value / finding.claim.comparison_value <= 1)).toBe(true);
      expect(drivers.filter((finding) => finding.claim.segment?.grain !== undefined)).toEqual([]);
      // no other region drives a rise it did not share in
      expect(drivers.filter((finding) => finding.claim.metric.kind === 'count' && finding.claim.segment?.value !== 'West')).toEqual([]);
      expect(mined.unconfirmed.filter((line) => /account for/.test(line))).toEqual([]);
    });
  });
}

describe('when false driver claims are checked on DuckDB', () => {
  const base = (): Record<string, unknown> => {
    const west = only(engines.duckdb?.mined.findings ?? [], 'contribution').find(
      (finding) => finding.claim.segment?.value === 'West' && finding.claim.metric.kind === 'count',
    );
    if (!west) throw new Error('no driver finding to build false claims from');
    return JSON.parse(JSON.stringify(west.claim)) as Record<string, unknown>;
  };

  it('adjusts a claim that gives the driver the wrong share of the change', async () => {
    const checked = await verdictOf('duckdb', claimSchema.parse({ ...base(), value: 150 }));
    expect(checked.status).toBe('adjusted');
    expect(checked.recount?.value).toBe(300);
  });

  it('rejects a fall claimed for a rise, and a region that did not drive it', async () => {
    expect(
      (await verdictOf('duckdb', claimSchema.parse({ ...base(), direction: 'lower', value: -300, comparison_value: -300 }))).status,
    ).toBe('rejected');
    const north = await verdictOf('duckdb', claimSchema.parse({ ...base(), segment: { column: 'region', value: 'North' }, value: 200 }));
    expect(north.status).toBe('rejected');
  });

  it('rejects a change between two periods where nothing changed', async () => {
    const flat = claimSchema.parse({
      ...base(),
      window: { from: '2024-05-01', to: '2024-06-01' },
      baseline: { from: '2024-04-01', to: '2024-05-01' },
      value: 10,
      comparison_value: 20,
    });
    const checked = await verdictOf('duckdb', flat);
    expect(checked.status).toBe('rejected');
  });

  it('renders words the text check accepts', () => {
    const claim = claimSchema.parse(base());
    const text = renderClaim(claim);
    expect(textDisagreements(claim, { name: text.title, description: text.description })).toEqual([]);
  });
});

describe('when false outlier claims are checked on DuckDB', () => {
  const base = (): Record<string, unknown> => {
    const high = only(engines.duckdb?.mined.findings ?? [], 'outlier').find((finding) => finding.claim.direction === 'higher');
    if (!high) throw new Error('no outlier finding to build false claims from');
    return JSON.parse(JSON.stringify(high.claim)) as Record<string, unknown>;
  };

  it('adjusts a claim whose extreme rows hold a different share of the total, and rewrites its words', async () => {
    const claim = claimSchema.parse({ ...base(), share_of_total: 0.6 });
    const checked = await verdictOf('duckdb', claim);
    expect(checked.status).toBe('adjusted');
    expect(checked.check?.share_of_total).toBeCloseTo(75_000 / (75_000 + 2_697 * 250), 1);
  });

  it('rejects a claim that calls the high rows low, and a threshold inside the fence (the tail of the data)', async () => {
    const reversed = claimSchema.parse({ ...base(), direction: 'lower' });
    expect((await verdictOf('duckdb', reversed)).status).toBe('rejected');
    const tail = claimSchema.parse({ ...base(), segment: { column: 'amount_usd', from: 400, label: 'amount' } });
    const checked = await verdictOf('duckdb', tail);
    expect(checked.status).toBe('rejected');
    expect(checked.reasoning).toMatch(/inside the far-out fence/);
  });

  it('renders words the text check accepts', () => {
    const claim = claimSchema.parse(base());
    const text = renderClaim(claim);
    expect(textDisagreements(claim, { name: text.title, description: text.description })).toEqual([]);
  });
});
