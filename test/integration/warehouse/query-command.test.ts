import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli, type CliOutcome } from '../../support/run-cli.js';
import { createDuckdbFixtureFile } from './fixtures.js';

let directory: string;
let url: string;

beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'assay-query-cli-'));
  url = `duckdb:${await createDuckdbFixtureFile(directory)}`;
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

afterEach(() => {
  vi.restoreAllMocks();
});

function runQuery(...args: string[]): Promise<CliOutcome> {
  return runCli(['query', ...args]);
}

describe('when assay query runs a SELECT', () => {
  it('prints a table and a summary line', async () => {
    const result = await runQuery('--warehouse', url, '--max-rows', '2', 'SELECT id, note FROM orders ORDER BY id');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/│ id │ note +│/);
    expect(result.stdout).toContain('2 rows (truncated at 2; raise --max-rows to see more)');
  });

  it('prints JSON with --json', async () => {
    const result = await runQuery('--warehouse', url, '--json', 'SELECT count(*) AS n FROM orders');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ rows: [{ n: 4 }], rowCount: 1, truncated: false });
  });
});

describe('when assay query is given unsafe SQL', () => {
  it('exits 3 with the reason on stderr and prints nothing', async () => {
    const result = await runQuery('--warehouse', url, "SELECT * FROM read_csv('/etc/passwd')");
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('refused: function read_csv is not on the DuckDB allow-list: it reads files or URLs');
    expect(result.stdout).toBe('');
  });
});

describe('when --max-rows is not a positive integer', () => {
  it('exits 2 naming the option', async () => {
    const result = await runQuery('--warehouse', url, '--max-rows', 'lots', 'SELECT 1');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--max-rows must be a positive integer');
  });
});
