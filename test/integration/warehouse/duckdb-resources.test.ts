import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLockedDuckdb } from '../../../src/warehouse/duckdb/duckdb-warehouse.js';
import { createDuckdbFixtureFile } from './fixtures.js';

let directory: string;
let file: string;

beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'assay-duckdb-resources-'));
  file = await createDuckdbFixtureFile(directory);
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function settingsOf(resources: Parameters<typeof openLockedDuckdb>[0]['resources']) {
  const engine = await openLockedDuckdb({ path: file, resources });
  try {
    const reader = await engine.connection.runAndReadAll(
      "SELECT current_setting('memory_limit') AS memory, current_setting('threads') AS threads, current_setting('temp_directory') AS spill",
    );
    const [row] = reader.getRowObjectsJson() as Array<{ memory: string; threads: string; spill: string }>;
    return {
      row: row as { memory: string; threads: string; spill: string },
      cleanup: engine.cleanup,
      close: () => engine.instance.closeSync(),
    };
  } catch (error) {
    engine.instance.closeSync();
    await engine.cleanup();
    throw error;
  }
}

describe('when a DuckDB warehouse opens with resource limits', () => {
  it('applies the memory limit and threads before the configuration is locked', async () => {
    const opened = await settingsOf({ memoryLimitBytes: 300 * 1_048_576, threads: 1 });
    opened.close();
    await opened.cleanup();
    expect(opened.row.memory).toBe('300.0 MiB');
    expect(Number(opened.row.threads)).toBe(1);
  });

  it('names a private spill directory that DuckDB makes only when it spills, and removes it when the warehouse closes', async () => {
    const engine = await openLockedDuckdb({ path: ':memory:', resources: { memoryLimitBytes: 64 * 1_048_576, threads: 1 } });
    const setting = await engine.connection.runAndReadAll("SELECT current_setting('temp_directory') AS spill");
    const spill = (setting.getRowObjectsJson()[0] as { spill: string }).spill;
    expect(spill).toContain('assay-duckdb-spill-');
    // nothing on disk until a statement needs it: a process that exits without closing leaves nothing behind
    expect(existsSync(spill)).toBe(false);
    const sorted = await engine.connection.runAndReadAll(
      'SELECT count(*) AS n FROM (SELECT i, md5(CAST(i AS VARCHAR)) AS h FROM range(3000000) t(i) ORDER BY h) s',
    );
    expect(Number((sorted.getRowObjectsJson()[0] as { n: string }).n)).toBe(3_000_000);
    expect(existsSync(spill)).toBe(true);
    engine.instance.closeSync();
    await engine.cleanup();
    expect(existsSync(spill)).toBe(false);
  });

  it('spills into the configured directory and leaves it in place', async () => {
    const spill = path.join(directory, 'spill');
    const opened = await settingsOf({ memoryLimitBytes: 256 * 1_048_576, tempDirectory: spill });
    opened.close();
    await opened.cleanup();
    expect(opened.row.spill).toBe(spill);
  });
});
