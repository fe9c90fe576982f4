import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/cli/main.js';
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

async function runCli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  try {
    const code = await main(['node', 'assay', 'demo-data', ...args]);
    return { code, stdout, stderr };
  } finally {
    vi.restoreAllMocks();
  }
}

describe('when assay demo-data writes a new warehouse', () => {
  it('prints the tables with their rows, the truths path and the elapsed seconds', async () => {
    const out = join(workDir, 'shop.duckdb');
    const result = await runCli('--kind', 'ecommerce', '--out', out, '--seed', '3', '--scale', '0.2');
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
    expect((await runCli('--kind', 'social', '--out', out, '--scale', '0.2')).code).toBe(0);
    const before = await stat(out);
    const refused = await runCli('--kind', 'social', '--out', out, '--scale', '0.2');
    expect(refused.code).toBe(ERROR_MAPPING.conflict.exitCode);
    expect(refused.stderr).toContain('already exists');
    expect(refused.stderr).toContain('--force');
    expect((await stat(out)).mtimeMs).toBe(before.mtimeMs);
  });

  it('replaces it with --force', async () => {
    const out = join(workDir, 'forced.duckdb');
    expect((await runCli('--kind', 'gaming', '--out', out, '--scale', '0.2')).code).toBe(0);
    const replaced = await runCli('--kind', 'gaming', '--out', out, '--scale', '0.2', '--seed', '9', '--force', '--json');
    expect(replaced.code).toBe(0);
    const summary = JSON.parse(replaced.stdout) as { tables: Array<{ name: string; rows: number }> };
    expect(summary.tables.find((table) => table.name === 'main.players')?.rows).toBe(1600);
    expect(JSON.parse(await readFile(`${out}.truths.json`, 'utf8')).seed).toBe(9);
  });
});

describe('when the arguments are invalid', () => {
  it('rejects an unknown kind with the validation exit code and names the allowed kinds', async () => {
    const result = await runCli('--kind', 'retail', '--out', join(workDir, 'never.duckdb'));
    expect(result.code).toBe(ERROR_MAPPING.validation.exitCode);
    expect(result.stderr).toContain('ecommerce, gaming, social, erp');
    await expect(stat(join(workDir, 'never.duckdb'))).rejects.toThrow();
  });

  it('rejects a seed that is not an integer', async () => {
    const result = await runCli('--kind', 'ecommerce', '--out', join(workDir, 'never.duckdb'), '--seed', 'abc');
    expect(result.code).toBe(ERROR_MAPPING.validation.exitCode);
    expect(result.stderr).toContain('--seed');
  });
});
