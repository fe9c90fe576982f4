/**
 * Reading back a generated demo warehouse: its truths file, whether each planted pattern's check
 * holds, and per-table checksums. Opens the DuckDB file read-only; used by evals and tests.
 */
import { readFile } from 'node:fs/promises';
import { NotFoundError, ValidationError } from '../errors/index.js';
import { withDuckDbFile } from './duckdb-file.js';
import { runPatternChecks, type PatternCheckResult } from './pattern-checks.js';
import { demoTruthsSchema, type DemoTruths } from './planted-pattern.js';
import { checksumTables } from './table-inventory.js';

export type { PatternCheckResult } from './pattern-checks.js';

export async function readDemoTruths(truthsPath: string): Promise<DemoTruths> {
  let text: string;
  try {
    text = await readFile(truthsPath, 'utf8');
  } catch (error) {
    throw new NotFoundError(`no truths file at ${truthsPath}: generate the warehouse with \`assay demo-data\` first`, {
      truthsPath,
      cause: String(error),
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ValidationError(`truths file ${truthsPath} is not valid JSON`, [{ path: '', message: String(error) }]);
  }
  const parsed = demoTruthsSchema.safeParse(json);
  if (!parsed.success) {
    throw new ValidationError(
      `truths file ${truthsPath} does not match the truths schema`,
      parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    );
  }
  return parsed.data;
}

/** Runs every pattern's check SQL against the warehouse at `dbPath`. */
export async function verifyDemoTruths(dbPath: string, truths: DemoTruths): Promise<PatternCheckResult[]> {
  return withDuckDbFile(dbPath, 'read_only', (connection) => runPatternChecks(connection, truths.patterns));
}

/** Per-table content digests (`schema.table` → digest); equal digests mean equal rows. */
export async function checksumDemoWarehouse(dbPath: string): Promise<Record<string, string>> {
  return withDuckDbFile(dbPath, 'read_only', (connection) => checksumTables(connection));
}
