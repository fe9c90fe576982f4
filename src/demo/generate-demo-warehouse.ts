/**
 * Builds a demo DuckDB warehouse of one kind, deterministically from a seed, and writes the
 * truths file (`<out>.truths.json`) that records the planted patterns and their measured evidence.
 *
 * Randomness is hash-based SQL over row keys (see random-sql.ts), so the data does not depend on
 * DuckDB's thread scheduling. The file is built under a temporary name and renamed into place, so a
 * failed generation never leaves a half-written warehouse at `out`.
 */
import { existsSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { AssayError, ConflictError, ValidationError } from '../errors/index.js';
import { demoDatasetFor } from './datasets/index.js';
import { parseDemoKind, type DemoKind } from './demo-kind.js';
import { runSql, withNewDuckDbFile } from './duckdb-file.js';
import { runPatternChecks, withEvidence } from './pattern-checks.js';
import { describeExpectation, type DemoTruths } from './planted-pattern.js';
import { randomMacrosSql } from './random-sql.js';
import { DEFAULT_DEMO_SCALE, DEFAULT_DEMO_SEED, MAX_DEMO_SCALE } from './demo-size.js';
import { countTableRows, type DemoTableCount } from './table-inventory.js';

export interface GenerateDemoWarehouseOptions {
  kind: DemoKind;
  /** Path of the DuckDB file to create. */
  out: string;
  /** @defaultValue DEFAULT_DEMO_SEED */
  seed?: number;
  /** Multiplier on entity counts; 1 is the documented size. @defaultValue 1 */
  scale?: number;
  /** Replace an existing file at `out`. @defaultValue false */
  overwrite?: boolean;
  /** Write the truths file `<out>.truths.json` beside the warehouse. @defaultValue true */
  truths?: boolean;
}

export interface DemoWarehouseSummary {
  /** Absolute path of the DuckDB file. */
  path: string;
  tables: DemoTableCount[];
  /** The planted patterns with their measured evidence. */
  truths: DemoTruths;
  /** Where they were written; null when `truths: false`. */
  truthsPath: string | null;
  elapsedMs: number;
}

export function truthsPathFor(out: string): string {
  return `${out}.truths.json`;
}

function validatedNumbers(options: GenerateDemoWarehouseOptions): { seed: number; scale: number } {
  const seed = options.seed ?? DEFAULT_DEMO_SEED;
  const scale = options.scale ?? DEFAULT_DEMO_SCALE;
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new ValidationError(`seed must be a non-negative integer, got ${seed}`, [
      { path: 'seed', message: 'expected a non-negative integer' },
    ]);
  }
  if (!(scale > 0 && scale <= MAX_DEMO_SCALE)) {
    throw new ValidationError(`scale must be greater than 0 and at most ${MAX_DEMO_SCALE}, got ${scale}`, [
      { path: 'scale', message: `expected 0 < scale <= ${MAX_DEMO_SCALE}` },
    ]);
  }
  return { seed, scale };
}

async function removeDuckDbFile(path: string): Promise<void> {
  await rm(path, { force: true });
  await rm(`${path}.wal`, { force: true });
}

export async function generateDemoWarehouse(options: GenerateDemoWarehouseOptions): Promise<DemoWarehouseSummary> {
  const startedAt = performance.now();
  const kind = parseDemoKind(options.kind);
  const { seed, scale } = validatedNumbers(options);
  const path = resolve(options.out);
  const truthsPath = truthsPathFor(path);
  if (existsSync(path) && options.overwrite !== true) {
    throw new ConflictError(`${path} already exists: choose another --out or pass --force to replace it`, { path });
  }

  const dataset = demoDatasetFor(kind);
  const partialPath = `${path}.partial-${process.pid}`;
  await removeDuckDbFile(partialPath);
  try {
    const { tables, checks } = await withNewDuckDbFile(partialPath, async (connection) => {
      await runSql(connection, randomMacrosSql(seed), 'creating the seeded random macros');
      await runSql(connection, 'BEGIN TRANSACTION', `starting the ${kind} build`);
      for (const [index, sql] of dataset.buildSql({ seed, scale }).entries()) {
        await runSql(connection, sql, `${kind} build step ${index + 1}`);
      }
      await runSql(connection, 'COMMIT', `committing the ${kind} build`);
      const counted = await countTableRows(connection);
      const checked = await runPatternChecks(connection, dataset.patterns);
      await runSql(connection, 'CHECKPOINT', 'checkpointing the demo file');
      return { tables: counted, checks: checked };
    });

    const failed = checks.filter((check) => !check.passed);
    if (failed.length > 0) {
      // A generator whose own planted pattern does not hold is a bug here, not a user error.
      const summary = failed
        .map((check) => {
          const pattern = dataset.patterns.find((candidate) => candidate.id === check.id);
          return `${check.id}: value ${check.value} is not ${pattern ? describeExpectation(pattern.check.expect) : '?'}`;
        })
        .join('; ');
      throw new AssayError('internal', `demo ${kind} (seed ${seed}, scale ${scale}) did not plant its patterns: ${summary}`, {
        details: { kind, seed, scale, failed },
      });
    }

    const truths: DemoTruths = {
      kind,
      seed,
      scale,
      patterns: dataset.patterns.map((pattern, index) => {
        const check = checks[index];
        if (check === undefined || check.id !== pattern.id)
          throw new AssayError('internal', `pattern check results out of order at ${pattern.id}`);
        return withEvidence(pattern, check);
      }),
    };

    if (options.overwrite === true) await removeDuckDbFile(path);
    await rename(partialPath, path);
    if (options.truths === false) return { path, tables, truths, truthsPath: null, elapsedMs: Math.round(performance.now() - startedAt) };
    await writeFile(`${truthsPath}.partial-${process.pid}`, `${JSON.stringify(truths, null, 2)}\n`, 'utf8');
    await rename(`${truthsPath}.partial-${process.pid}`, truthsPath);
    return { path, tables, truths, truthsPath, elapsedMs: Math.round(performance.now() - startedAt) };
  } finally {
    await removeDuckDbFile(partialPath);
  }
}
