/**
 * `assay verify` on a DuckDB file: one exit code per verdict (the weakest of a list decides), the
 * recount and the SQL in its output, JSON that mirrors the input's shape, schema errors with their paths
 * before any warehouse is opened, and claims read from standard input.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { VERDICT_EXIT_CODES } from '../../../src/cli/commands/verify.js';
import { ERROR_MAPPING } from '../../../src/errors/index.js';
import { runCli } from '../../support/run-cli.js';

const REPO_ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const dir = mkdtempSync(join(tmpdir(), 'assay-verify-cli-'));
const path = join(dir, 'tickets.duckdb');
const url = `duckdb:${path}`;
/** Network's and the other categories' mean days open, measured in beforeAll. */
let network = 0;
let others = 0;

/** 400 tickets: Network (80) stays open 4 days plus 0–1, the others 1 day plus 0–1; agents 0–6 everywhere. */
beforeAll(async () => {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  await connection.run(`
    CREATE TABLE tickets AS
      SELECT i AS id,
             CASE WHEN i % 5 = 2 THEN 'Network' WHEN i % 5 IN (0, 1) THEN 'Hardware' ELSE 'Software' END AS category,
             (CASE WHEN i % 5 = 2 THEN 4 ELSE 1 END + (i % 3) * 0.5)::DOUBLE AS days_open,
             i % 7 AS agent
      FROM range(0, 400) t(i);
  `);
  const row = (
    await connection.runAndReadAll(
      `SELECT avg(days_open) FILTER (WHERE category = 'Network') AS a, avg(days_open) FILTER (WHERE category <> 'Network') AS b FROM tickets`,
    )
  ).getRowObjectsJS()[0] as { a: number; b: number };
  network = row.a;
  others = row.b;
  connection.closeSync();
  instance.closeSync();
});

afterEach(() => {
  // the command reports its verdict through process.exitCode, which outlives an in-process run
  process.exitCode = undefined;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const daysOpen = (overrides: Record<string, unknown> = {}) => ({
  kind: 'difference',
  metric: { kind: 'mean', table: 'main.tickets', column: 'days_open', label: 'days open' },
  segment: { column: 'category', value: 'Network' },
  comparison: { kind: 'rest' },
  value: network,
  comparison_value: others,
  direction: 'higher',
  noun: 'tickets',
  ...overrides,
});

function claimFile(name: string, content: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

const verify = (...args: string[]) => runCli(['verify', '--warehouse', url, ...args]);

describe('when assay verify checks one claim', () => {
  it('confirms a true claim: exit 0, the claim in words, both values recounted, the test, n and the SQL', async () => {
    const result = await verify('--claim', claimFile('true.json', daysOpen()));
    expect(result.code, result.stderr).toBe(VERDICT_EXIT_CODES.confirmed);
    expect(result.stdout).toMatch(/^CONFIRMED\n/);
    expect(result.stdout).toContain('Tickets whose category is Network have a higher average days open');
    const [shownNetwork, shownOthers] = [network.toFixed(2), others.toFixed(2)];
    expect(result.stdout).toContain(`recount    ${shownNetwork} vs ${shownOthers} (claimed ${shownNetwork} vs ${shownOthers})`);
    expect(result.stdout).toMatch(/test +welch_t = [\d.]+, p < 0\.001/);
    expect(result.stdout).toContain('80 behind the value, 320 behind the comparison');
    expect(result.stdout).toMatch(/sql\n +SELECT count\(CASE WHEN t\."category" = 'Network'/);
  });

  it('adjusts an inflated claim (exit 10) and says what the recount restates', async () => {
    const result = await verify('--claim', claimFile('inflated.json', daysOpen({ value: network * 3 })));
    expect(result.code).toBe(VERDICT_EXIT_CODES.adjusted);
    expect(result.stdout).toMatch(/^ADJUSTED/);
    expect(result.stdout).toContain(
      `restated   Tickets whose category is Network have a higher average days open: ${network.toFixed(2)} vs ${others.toFixed(2)}`,
    );
  });

  it('rejects a reversed claim (exit 11) and a claim on a column the warehouse lacks', async () => {
    const reversed = await verify(
      '--claim',
      claimFile('reversed.json', daysOpen({ value: others, comparison_value: network, direction: 'lower' })),
    );
    expect(reversed.code).toBe(VERDICT_EXIT_CODES.rejected);
    expect(reversed.stdout).toContain('the direction does not hold');
    const missing = await verify('--claim', claimFile('missing.json', daysOpen({ segment: { column: 'team', value: 'A' } })));
    expect(missing.code).toBe(VERDICT_EXIT_CODES.rejected);
    expect(missing.stdout).toContain('column "team" is not in main.tickets');
  });

  it('leaves a claim no test applies to unverified (exit 12)', async () => {
    const distinct = daysOpen({
      metric: { kind: 'distinct_count', table: 'main.tickets', column: 'id' },
      value: 80,
      comparison_value: 320,
      direction: 'lower',
    });
    const result = await verify('--claim', claimFile('distinct.json', distinct));
    expect(result.code).toBe(VERDICT_EXIT_CODES.unverified);
    expect(result.stdout).toMatch(/^UNVERIFIED/);
  });

  it('applies --min-support: 15 tickets are a segment at 10 and too few at 20', async () => {
    const small = daysOpen({ segment: { column: 'id', from: 0, to: 15 }, value: 0, comparison_value: 0 });
    const json = await verify('--json', '--claim', claimFile('small.json', small));
    const measured = JSON.parse(json.stdout) as { recount: { value: number; comparison_value: number } };
    const stated = daysOpen({
      segment: { column: 'id', from: 0, to: 15 },
      value: measured.recount.value,
      comparison_value: measured.recount.comparison_value,
    });
    stated.direction = measured.recount.value > measured.recount.comparison_value ? 'higher' : 'lower';
    const file = claimFile('small-stated.json', stated);
    expect((await verify('--min-support', '20', '--claim', file)).stdout).toContain(
      'only 15 rows behind the segment, fewer than the 20 needed',
    );
    expect((await verify('--min-support', '10', '--claim', file)).stdout).not.toContain('fewer than the');
    expect((await verify('--min-support', 'many', '--claim', file)).code).toBe(ERROR_MAPPING.validation.exitCode);
  });

  it('prints one JSON object for one claim', async () => {
    const result = await verify('--json', '--claim', claimFile('one.json', daysOpen()));
    const verdict = JSON.parse(result.stdout);
    expect(verdict).toMatchObject({
      status: 'confirmed',
      recount: { n: 80, comparison_n: 320, test: { name: 'welch_t' } },
      claim: { metric: { column: 'days_open', filters: [] } },
    });
    expect(verdict.recount.value).toBeCloseTo(network, 9);
    expect(verdict.recount.p_value).toBeLessThan(1e-10);
    expect(verdict.sql).toMatch(/^SELECT /);
  });
});

describe('when assay verify checks a list of claims', () => {
  it('answers with an array in order, and the weakest verdict decides the exit code', async () => {
    const list = [daysOpen(), daysOpen({ value: network * 3 }), daysOpen({ value: others, comparison_value: network, direction: 'lower' })];
    const result = await verify('--json', '--claim', claimFile('list.json', list));
    expect(result.code).toBe(VERDICT_EXIT_CODES.rejected);
    expect((JSON.parse(result.stdout) as Array<{ status: string }>).map((verdict) => verdict.status)).toEqual([
      'confirmed',
      'adjusted',
      'rejected',
    ]);
    const wrapped = await verify('--claim', claimFile('wrapped.json', { claims: [daysOpen(), daysOpen({ value: network * 3 })] }));
    expect(wrapped.code).toBe(VERDICT_EXIT_CODES.adjusted);
    expect(wrapped.stdout).toMatch(/^claim 1 of 2: CONFIRMED[\s\S]*\n\nclaim 2 of 2: ADJUSTED/);
  });
});

describe('when the input is not a claim', () => {
  it('exits with the validation code and names every offending field by its path', async () => {
    const bad = { claims: [daysOpen(), daysOpen({ metric: { kind: 'average', table: 'main.tickets' }, direction: 'up' })] };
    const result = await verify('--claim', claimFile('bad.json', bad));
    expect(result.code).toBe(ERROR_MAPPING.validation.exitCode);
    expect(result.stderr).toContain('claims.1.metric.kind');
    expect(result.stderr).toContain('claims.1.direction');
    expect(result.stdout).toBe('');
  });

  it('refuses text that is not JSON, an empty list, and a file that is not there', async () => {
    expect((await verify('--claim', claimFile('text.json', 'the Network queue is slow'))).stderr).toMatch(/is not JSON/);
    expect((await verify('--claim', claimFile('empty.json', []))).stderr).toContain('no claim to check');
    const absent = await verify('--claim', join(dir, 'absent.json'));
    expect(absent.code).toBe(ERROR_MAPPING.validation.exitCode);
    expect(absent.stderr).toContain('cannot read the claim file');
  });

  it('refuses a bad claim before it opens the warehouse', async () => {
    const result = await runCli([
      'verify',
      '--warehouse',
      `duckdb:${join(dir, 'nowhere', 'none.duckdb')}`,
      '--claim',
      claimFile('bad2.json', { kind: 'trend' }),
    ]);
    expect(result.code).toBe(ERROR_MAPPING.validation.exitCode);
  });
});

describe('the exit codes', () => {
  it('are distinct per verdict and none is an error code of the CLI', () => {
    const verdictCodes = [
      VERDICT_EXIT_CODES.confirmed,
      VERDICT_EXIT_CODES.adjusted,
      VERDICT_EXIT_CODES.rejected,
      VERDICT_EXIT_CODES.unverified,
    ];
    expect(new Set(verdictCodes).size).toBe(4);
    const errorCodes = new Set(Object.values(ERROR_MAPPING).map((mapping) => mapping.exitCode));
    for (const code of verdictCodes.slice(1)) expect(errorCodes.has(code)).toBe(false);
    expect(VERDICT_EXIT_CODES.error).toBe(ERROR_MAPPING.warehouse.exitCode);
  });
});

describe('when the claims come from standard input', () => {
  it('reads them with --claim -', () => {
    const result = spawnSync(
      process.execPath,
      [join(REPO_ROOT, 'bin', 'assay.js'), 'verify', '--warehouse', url, '--claim', '-', '--json'],
      {
        input: JSON.stringify([daysOpen()]),
        encoding: 'utf8',
        env: { ...process.env, ASSAY_DATA_DIR: join(dir, 'data'), NO_COLOR: '1' },
        timeout: 120_000,
      },
    );
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject([{ status: 'confirmed' }]);
  });
});
