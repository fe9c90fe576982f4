/**
 * What a finder hands back: every hypothesis it tested (their p-values form the run's Benjamini–Hochberg
 * family, reported or not), and the candidates worth reporting if they survive the correction.
 */
import type { Claim, FindingEffect } from '../../domain/index.js';
import type { MiningTable } from './mining-table.js';

export interface Candidate {
  claim: Claim;
  effect: FindingEffect;
  /** Share of the table's rows the finding is about. */
  coverage: number;
  /** Effect size mapped to 0–1. */
  strength: number;
  columns: string[];
  /** Words that say what the finding is about, for goal relevance (labels, the segment's value, the kind). */
  subject: string;
  /** Index of its test in the finder's `pValues` (the family). */
  test: number;
}

export interface FinderOutput {
  /** Every test made, reported or not. */
  pValues: number[];
  /** What each test measured (its outcome's columns, or the grouping's for a count): its family is decided by them. */
  testColumns: string[][];
  candidates: Candidate[];
}

export function emptyOutput(): FinderOutput {
  return { pValues: [], testColumns: [], candidates: [] };
}

/** Records a test in the output's family; returns its index. */
export function recordTest(output: FinderOutput, pValue: number, columns: readonly string[]): number {
  output.pValues.push(pValue);
  output.testColumns.push([...columns]);
  return output.pValues.length - 1;
}

export function mergeOutputs(outputs: readonly FinderOutput[]): FinderOutput {
  const merged = emptyOutput();
  for (const output of outputs) {
    const offset = merged.pValues.length;
    merged.pValues.push(...output.pValues);
    merged.testColumns.push(...output.testColumns);
    for (const candidate of output.candidates) merged.candidates.push({ ...candidate, test: candidate.test + offset });
  }
  return merged;
}

/** Settings every finder reads. */
export interface FinderSettings {
  /** Rows a segment needs, at least, to be reported (smaller segments are still tested). */
  minSupport: number;
  /** Which direction of a measure is good, when the pack says so (`higher` for revenue, `lower` for delay). */
  table: MiningTable;
}

/** Clamp to 0–1. */
export function unit(value: number): number {
  return Number.isFinite(value) ? Math.max(0, Math.min(1, value)) : 0;
}
