import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli, type CliOutcome } from '../../support/run-cli.js';
import { ERROR_MAPPING } from '../../../src/errors/index.js';

let workDir: string;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'assay-demo-cli-'));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});

function runDemoData(...args: string[]): Promise<CliOutcome> {
  return runCli(['demo-data', ...args]);
}

describe('when assay demo-data writes a new warehouse', () => {
  it('writes the warehouse and nothing else beside it unless --truths is given', async () => {
    const dir = await mkdtemp(join(workDir, 'plain-'));
    const result = await runDemoData('--kind', 'gaming', '--out', join(dir, 'gaming.duckdb'), '--scale', '0.2');
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('truths:');
    expect(await readdir(dir)).toEqual(['gaming.duckdb']);
  });

  it('prints the tables with their rows, the truths path and the elapsed seconds', async () => {
    const out = join(workDir, 'shop.duckdb');
    const result = await runDemoData('--kind', 'ecommerce', '--out', out, '--seed', '3', '--scale', '0.2', '--truths');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('main.customers');
    expect(result.stdout).toContain('1,000');
    expect(result.stdout).toContain(`truths: ${out}.truths.json`);
    expect(result.stdout).toMatch(/generated in \d+\.\d\d s/);
    expect(JSON.parse(await readFile(`${out}.truths.json`, 'utf8')).seed).toBe(3);
  });
});

describe('when the output file already exists', () => {
  it('refuses without --force, exits with the conflict code and leaves the file as it was', async () => {
    const out = join(workDir, 'existing.duckdb');
    expect((await runDemoData('--kind', 'social', '--out', out, '--scale', '0.2')).code).toBe(0);
    const before = await stat(out);
    const refused = await runDemoData('--kind', 'social', '--out', out, '--scale', '0.2');
    expect(refused.code).toBe(ERROR_MAPPING.conflict.exitCode);
    expect(refused.stderr).toContain('already exists');
    expect(refused.stderr).toContain('--force');
    expect((await stat(out)).mtimeMs).toBe(before.mtimeMs);
  });

  it('replaces it with --force', async () => {
    const out = join(workDir, 'forced.duckdb');
    expect((await runDemoData('--kind', 'gaming', '--out', out, '--scale', '0.2')).code).toBe(0);
    const replaced = await runDemoData('--kind', 'gaming', '--out', out, '--scale', '0.2', '--seed', '9', '--force', '--json', '--truths');
    expect(replaced.code).toBe(0);
    const summary = JSON.parse(replaced.stdout) as { tables: Array<{ name: string; rows: number }> };
    expect(summary.tables.find((table) => table.name === 'main.players')?.rows).toBe(1600);
    expect(JSON.parse(await readFile(`${out}.truths.json`, 'utf8')).seed).toBe(9);
  });
});

describe('when the arguments are invalid', () => {
  it('rejects an unknown kind with the validation exit code and names the allowed kinds', async () => {
    const result = await runDemoData('--kind', 'retail', '--out', join(workDir, 'never.duckdb'));
    expect(result.code).toBe(ERROR_MAPPING.validation.exitCode);
    expect(result.stderr).toContain('ecommerce, gaming, social, erp');
    await expect(stat(join(workDir, 'never.duckdb'))).rejects.toThrow();
  });

  it('rejects a seed that is not an integer', async () => {
    const result = await runDemoData('--kind', 'ecommerce', '--out', join(workDir, 'never.duckdb'), '--seed', 'abc');
    expect(result.code).toBe(ERROR_MAPPING.validation.exitCode);
    expect(result.stderr).toContain('--seed');
  });
});
