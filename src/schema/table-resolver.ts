/**
 * Turns a table reference written by the model into a table: exact qualified name, then the bare
 * name if only one table has it, then a case-insensitive match if only one table matches.
 */
import type { TableSchema } from '../warehouse/port.js';

export type Resolution = { kind: 'found'; table: TableSchema } | { kind: 'ambiguous'; candidates: string[] } | { kind: 'not_found' };

export interface TableResolver {
  resolve(reference: string): Resolution;
  readonly size: number;
}

export type TableSource = ReadonlyMap<string, TableSchema> | readonly TableSchema[];

/**
 * Strips one layer of backticks or double quotes around the whole reference, and the quotes of a
 * quoted `"schema"."table"` pair, after trimming. Returns '' for a reference with nothing left.
 */
export function normaliseTableRef(reference: string): string {
  const ref = reference.trim();
  // The pair first: `"main"."orders"` also starts and ends with a quote.
  const pair = /^(`|")([^`"]+)\1\.(`|")([^`"]+)\3$/.exec(ref);
  if (pair) return `${pair[2] as string}.${pair[4] as string}`;
  const outer = /^(`|")(.*)\1$/s.exec(ref);
  return outer ? (outer[2] as string).trim() : ref;
}

function addTo(index: Map<string, TableSchema[]>, key: string, table: TableSchema): void {
  const list = index.get(key);
  if (!list) index.set(key, [table]);
  else if (!list.includes(table)) list.push(table);
}

function qualifiedNames(tables: readonly TableSchema[]): string[] {
  return tables.map((table) => table.qualified).sort();
}

export function createTableResolver(source: TableSource): TableResolver {
  const tables = Array.isArray(source) ? (source as readonly TableSchema[]) : [...(source as ReadonlyMap<string, TableSchema>).values()];
  const byQualified = new Map(tables.map((table) => [table.qualified, table]));
  const byBare = new Map<string, TableSchema[]>();
  const byLower = new Map<string, TableSchema[]>();
  for (const table of tables) {
    addTo(byBare, table.name, table);
    addTo(byLower, table.qualified.toLowerCase(), table);
    addTo(byLower, table.name.toLowerCase(), table);
  }

  return {
    size: tables.length,
    resolve(reference) {
      const exact = byQualified.get(reference);
      if (exact) return { kind: 'found', table: exact };
      const bare = byBare.get(reference) ?? [];
      if (bare.length === 1) return { kind: 'found', table: bare[0] as TableSchema };
      if (bare.length > 1) return { kind: 'ambiguous', candidates: qualifiedNames(bare) };
      const folded = byLower.get(reference.toLowerCase()) ?? [];
      if (folded.length === 1) return { kind: 'found', table: folded[0] as TableSchema };
      if (folded.length > 1) return { kind: 'ambiguous', candidates: qualifiedNames(folded) };
      return { kind: 'not_found' };
    },
  };
}
