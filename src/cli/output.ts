/**
 * What commands print: boxed tables for humans, indented JSON for machines. Light to import (every
 * command module does, and `assay --help` loads them all): cli-table3 is only required when a table is drawn.
 */
import { createRequire } from 'node:module';
import type CliTable from 'cli-table3';

const require = createRequire(import.meta.url);

/** Render rows as a boxed table for humans. */
export function renderTable(head: string[], rows: Array<Array<string | number | boolean | null | undefined>>): string {
  const Table = require('cli-table3') as typeof CliTable;
  const table = new Table({ head, style: { head: [], border: [] } });
  for (const row of rows) table.push(row.map((cell) => (cell === null || cell === undefined ? '' : String(cell))));
  return table.toString();
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
