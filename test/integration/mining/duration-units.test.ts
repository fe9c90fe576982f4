/**
 * A duration is stated in the unit its typical value reads best in. Level attempts last minutes
 * while the table spans a year: the time from start to completion is "minutes", where the unit used
 * to follow the table's whole span ("0.011 days vs 0.0031 days"); the recount, which uses the claim's
 * unit, still confirms it.
 *
 * 3,000 attempts at levels L1–L15 from January to December 2024; an attempt takes 3–6 minutes, and at
 * L12 about four times as long.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unitForSeconds } from '../../../src/discovery/mining/profile.js';
import type { MinedFinding } from '../../../src/domain/index.js';
import { openWarehouse } from '../../../src/warehouse/index.js';
import type { Warehouse } from '../../../src/warehouse/port.js';
import { type MinedAndChecked, mineAndCheck } from '../../support/mine-and-check.js';

let workDir: string;
let warehouse: Warehouse;
let mined: MinedAndChecked;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'assay-duration-units-'));
  const path = join(workDir, 'game.duckdb');
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  await connection.run(`
    CREATE TABLE level_attempts AS
      SELECT i AS attempt_id,
             'L' || CAST(1 + i % 15 AS INTEGER) AS level,
             TIMESTAMP '2024-01-01' + to_minutes(CAST(i * 173 AS BIGINT)) AS started_at,
             TIMESTAMP '2024-01-01' + to_minutes(CAST(i * 173 AS BIGINT))
               + to_seconds(CAST((180 + (i * 7919) % 180) * CASE WHEN 1 + i % 15 = 12 THEN 4 ELSE 1 END AS BIGINT)) AS completed_at
      FROM range(1, 3001) t(i)
  `);
  connection.closeSync();
  instance.closeSync();
  warehouse = await openWarehouse(`duckdb:${path}`);
  mined = await mineAndCheck(warehouse, { check: 40 });
}, 120_000);

afterAll(async () => {
  await warehouse?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

const isDuration = (finding: MinedFinding) =>
  finding.claim.metric.kind === 'duration_mean' || finding.claim.metric.kind === 'duration_median';

describe('durations in the unit their typical value reads best in', () => {
  it('states the time from start to completion of level attempts in minutes, and the recount agrees', () => {
    const durations = mined.findings.filter(isDuration);
    expect(durations.length, mined.findings.map((finding) => mined.text(finding)).join('\n')).toBeGreaterThan(0);
    for (const finding of durations) {
      expect(finding.claim.metric.unit).toBe('minutes');
      expect(mined.text(finding)).not.toMatch(/\bdays\b/);
    }
    const level12 = durations.find(
      (finding) => finding.claim.segment?.column === 'level' && String(finding.claim.segment?.value) === 'L12',
    );
    expect(level12, durations.map((finding) => mined.text(finding)).join('\n')).toBeDefined();
    expect(mined.text(level12 as MinedFinding)).toMatch(/minutes/);
    expect(mined.unconfirmed.filter((line) => /time from/.test(line))).toEqual([]);
  });

  it('picks minutes below an hour, hours below two days, days beyond, and nothing for no answer', () => {
    expect(unitForSeconds(270)).toBe('minutes');
    expect(unitForSeconds(5 * 3_600)).toBe('hours');
    expect(unitForSeconds(3 * 86_400)).toBe('days');
    expect(unitForSeconds(Number.NaN)).toBeUndefined();
    expect(unitForSeconds(0)).toBeUndefined();
  });
});
