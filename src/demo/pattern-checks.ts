/** Running the planted patterns' check SQL against a generated warehouse. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { numericCell, queryRows } from './duckdb-file.js';
import { CHECK_VALUE_COLUMN, meetsExpectation, type PlantedPattern, type PlantedPatternSpec } from './planted-pattern.js';

export interface PatternCheckResult {
  id: string;
  /** The check row's `value`; NaN when the check returned no numeric value. */
  value: number;
  passed: boolean;
  /** Every numeric column of the check's row, rounded for a stable truths file. */
  numbers: Record<string, number>;
}

/** Evidence is rounded so parallel floating-point sums cannot change the truths file's bytes. */
const EVIDENCE_DECIMALS = 4;

function roundEvidence(value: number): number {
  const factor = 10 ** EVIDENCE_DECIMALS;
  return Math.round(value * factor) / factor;
}

export async function runPatternCheck(connection: DuckDBConnection, pattern: PlantedPatternSpec): Promise<PatternCheckResult> {
  const rows = await queryRows(connection, pattern.check.sql, `check of planted pattern "${pattern.id}"`);
  const numbers: Record<string, number> = {};
  for (const [column, cell] of Object.entries(rows[0] ?? {})) {
    const number = numericCell(cell);
    if (number !== undefined && Number.isFinite(number)) numbers[column] = roundEvidence(number);
  }
  const value = numbers[CHECK_VALUE_COLUMN] ?? Number.NaN;
  return { id: pattern.id, value, passed: meetsExpectation(value, pattern.check.expect), numbers };
}

export async function runPatternChecks(
  connection: DuckDBConnection,
  patterns: readonly PlantedPatternSpec[],
): Promise<PatternCheckResult[]> {
  const results: PatternCheckResult[] = [];
  for (const pattern of patterns) results.push(await runPatternCheck(connection, pattern));
  return results;
}

export function withEvidence(pattern: PlantedPatternSpec, result: PatternCheckResult): PlantedPattern {
  return { ...pattern, evidence_numbers: result.numbers };
}
