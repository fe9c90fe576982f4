/**
 * Which rows of a step the report can honestly chart: every row when the digest kept them all,
 * otherwise the head and tail rows with the gap between them made explicit.
 */
import type { ExplorationStep, Row } from '../../domain/index.js';
import { formatNumber } from '../format.js';

export interface EvidenceRows {
  /** Contiguous runs of rows in result order; two segments mean rows between them are missing. */
  segments: Row[][];
  rowCount: number;
  /** Rows of the result that are in no segment. */
  omittedRows: number;
  /** How the rows relate to the full result, for chart captions. */
  description: string;
}

function describe(kept: number, rowCount: number, shape: string): string {
  return kept >= rowCount ? `all ${formatNumber(rowCount)} rows` : `${shape} of ${formatNumber(rowCount)} rows`;
}

function leadingRows(rows: Row[], rowCount: number): EvidenceRows {
  return {
    segments: [rows],
    rowCount,
    omittedRows: Math.max(0, rowCount - rows.length),
    description: describe(rows.length, rowCount, `first ${formatNumber(rows.length)}`),
  };
}

export function evidenceRows(step: ExplorationStep): EvidenceRows | undefined {
  const compact = step.compact;
  const evidence = step.rows ?? [];
  if (compact) {
    const rowCount = compact.row_count;
    if (compact.all_rows && compact.all_rows.length > 0) return leadingRows(compact.all_rows, rowCount);
    // The step's own evidence rows beat head+tail when they happen to hold the whole result.
    if (evidence.length > 0 && evidence.length >= rowCount) return leadingRows(evidence, rowCount);
    const head = compact.head_rows;
    const tail = compact.tail_rows ?? [];
    if (head.length === 0) return evidence.length > 0 ? leadingRows(evidence, rowCount) : undefined;
    if (tail.length === 0) return leadingRows(head, rowCount);
    const tailStart = rowCount - tail.length;
    if (tailStart <= head.length) {
      // Head and tail meet or overlap: together they are the whole result.
      return leadingRows([...head, ...tail.slice(head.length - tailStart)], rowCount);
    }
    return {
      segments: [head, tail],
      rowCount,
      omittedRows: tailStart - head.length,
      description: `first ${formatNumber(head.length)} and last ${formatNumber(tail.length)} of ${formatNumber(rowCount)} rows`,
    };
  }
  if (evidence.length === 0) return undefined;
  return leadingRows(evidence, step.row_count ?? evidence.length);
}
