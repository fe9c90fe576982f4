/** Byte cap on the rows a step stores: keeps whole rows, in order, while they fit. */
import type { Row } from '../domain/index.js';

export interface CappedRows {
  rows: Row[];
  /** True when at least one row was dropped to stay within the cap. */
  truncated: boolean;
  /** UTF-8 bytes of the kept rows as a JSON array. */
  bytes: number;
}

/**
 * Keep the longest prefix of `rows` whose JSON encoding (as an array) fits in `maxBytes`.
 * Measured in UTF-8 bytes, the unit storage limits are expressed in.
 */
export function capRowsByBytes(rows: readonly Row[], maxBytes: number): CappedRows {
  const kept: Row[] = [];
  let bytes = 2; // the enclosing "[]"
  for (const row of rows) {
    const rowBytes = Buffer.byteLength(JSON.stringify(row), 'utf8') + (kept.length > 0 ? 1 : 0);
    if (bytes + rowBytes > maxBytes) return { rows: kept, truncated: true, bytes };
    kept.push(row);
    bytes += rowBytes;
  }
  return { rows: kept, truncated: false, bytes };
}
