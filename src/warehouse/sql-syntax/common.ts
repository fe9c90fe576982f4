/** Pieces written the same way by every dialect that quotes identifiers with double quotes. */
import type { TableRef } from '../port.js';

export function doubleQuoted(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function singleQuoted(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

export function finiteNumber(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  return String(value);
}

export function qualifiedTable(ref: TableRef, quote: (name: string) => string): string {
  return `${quote(ref.schema)}.${quote(ref.name)}`;
}

/** Regex special characters of RE2 and POSIX ARE, escaped so a word is matched literally. */
export function regexLiteral(word: string): string {
  return word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
