import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../support/run-cli.js';
import type { PackSummary } from '../../../src/cli/commands/packs.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/packs');

const run = runCli;

describe('assay packs list', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('lists visible packs with areas in analysis order as JSON', async () => {
    vi.stubEnv('ASSAY_ENABLE_SYSTEM_TEST', 'false');
    const result = await run(['packs', 'list', '--json', '--dir', join(FIXTURES, 'valid')]);
    expect(result.code).toBe(0);
    const summaries = JSON.parse(result.stdout) as PackSummary[];
    expect(summaries.map((summary) => summary.slug)).toEqual(['mini']);
    expect(summaries[0]?.areas.map((area) => area.id)).toEqual(['gamma', 'alpha', 'beta']);
    expect(summaries[0]?.categories).toEqual([
      { id: 'extra', name: 'Extra', description: 'Adds area delta and lowers alpha.', areas: ['gamma', 'beta', 'delta', 'alpha'] },
      { id: 'plain', name: 'Plain', description: 'A category without context or areas.', areas: ['gamma', 'alpha', 'beta'] },
    ]);
  });

  it('includes hidden packs with --all', async () => {
    vi.stubEnv('ASSAY_ENABLE_SYSTEM_TEST', 'false');
    const result = await run(['packs', 'list', '--all', '--json', '--dir', join(FIXTURES, 'valid')]);
    expect((JSON.parse(result.stdout) as PackSummary[]).map((summary) => summary.slug)).toEqual(['mini', 'secret']);
  });

  it('includes hidden packs when ASSAY_ENABLE_SYSTEM_TEST is true', async () => {
    vi.stubEnv('ASSAY_ENABLE_SYSTEM_TEST', 'true');
    const result = await run(['packs', 'list', '--json', '--dir', join(FIXTURES, 'valid')]);
    expect((JSON.parse(result.stdout) as PackSummary[]).map((summary) => summary.slug)).toEqual(['mini', 'secret']);
  });

  it('prints a table with one row per pack and per category', async () => {
    vi.stubEnv('ASSAY_ENABLE_SYSTEM_TEST', 'false');
    const result = await run(['packs', 'list', '--dir', join(FIXTURES, 'valid')]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/mini\s+│ 0\.1\.0\s+│ \(base\)\s+│ gamma \[9\], alpha \[5\], beta \[5\]/);
    expect(result.stdout).toMatch(/│ extra\s+│ gamma, beta, delta, alpha/);
    expect(result.stdout).not.toContain('secret');
  });

  it('fails with the pack error and its exit code when a pack is broken', async () => {
    const result = await run(['packs', 'list', '--dir', join(FIXTURES, 'duplicate-area')]);
    expect(result.code).toBe(78);
    expect(result.stderr).toBe('assay: [pack] pack "mini": pack.json: areas[2].id: duplicate area id "beta"\n');
  });
});
