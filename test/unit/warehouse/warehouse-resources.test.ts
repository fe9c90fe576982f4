import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { DEFAULT_MEMORY_CAP_MB, defaultMemoryLimitMb, hostCapacity, warehouseResourcesFrom } from '../../../src/warehouse/limits.js';

const GIB = 1_073_741_824;

describe('the default memory limit of a warehouse connection', () => {
  it('is a quarter of a small container', () => {
    expect(defaultMemoryLimitMb({ memoryBytes: 2 * GIB, cores: 2 })).toBe(512);
  });

  it('stops at the cap on a large machine, where spilling is cheaper than holding a whole fact table', () => {
    expect(defaultMemoryLimitMb({ memoryBytes: 24 * GIB, cores: 2 })).toBe(DEFAULT_MEMORY_CAP_MB);
  });

  it('never goes below the configurable minimum', () => {
    expect(defaultMemoryLimitMb({ memoryBytes: 100 * 1_048_576, cores: 1 })).toBe(64);
  });
});

describe('the host capacity the defaults are taken from', () => {
  const files = (entries: Record<string, string>) => (path: string) => entries[path];

  it('reads the container memory limit and CPU quota of cgroup v2', () => {
    const host = hostCapacity(files({ '/sys/fs/cgroup/memory.max': '2147483648\n', '/sys/fs/cgroup/cpu.max': '150000 100000\n' }));
    expect(host.memoryBytes).toBe(2 * GIB);
    expect(host.cores).toBe(1);
  });

  it('falls back to the machine when the container sets no limit', () => {
    const host = hostCapacity(files({ '/sys/fs/cgroup/memory.max': 'max\n', '/sys/fs/cgroup/cpu.max': 'max 100000\n' }));
    expect(host.memoryBytes).toBeGreaterThan(64 * 1_048_576);
    expect(host.cores).toBeGreaterThanOrEqual(1);
  });
});

describe('resources from the sql config section', () => {
  const host = { memoryBytes: 8 * GIB, cores: 4 };

  it('fill unset keys with the worker defaults', () => {
    expect(warehouseResourcesFrom({}, host)).toEqual({ memoryLimitBytes: 1_024 * 1_048_576, threads: 4 });
  });

  it('keep what the config sets', () => {
    expect(warehouseResourcesFrom({ memoryLimitMb: 300, threads: 1, tempDirectory: '/var/spill' }, host)).toEqual({
      memoryLimitBytes: 300 * 1_048_576,
      threads: 1,
      tempDirectory: '/var/spill',
    });
  });

  it('are read from the environment', () => {
    const config = loadConfig({
      env: { ASSAY_SQL_MEMORY_LIMIT_MB: '700', ASSAY_SQL_THREADS: '3', ASSAY_SQL_TEMP_DIRECTORY: '/var/spill' },
    });
    expect(warehouseResourcesFrom(config.sql, host)).toEqual({
      memoryLimitBytes: 700 * 1_048_576,
      threads: 3,
      tempDirectory: '/var/spill',
    });
  });
});
