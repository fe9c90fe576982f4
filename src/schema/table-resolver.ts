/**
 * Turns a table reference written by the model into a table: exact qualified name, then the bare
 * name if only one table has it, then a case-insensitive match if only one table matches.
 */
import type { TableSchema } from '../warehouse/port.js';

export type Resolution =
  | { kind: 'found'; table: TableSchema }
  /** `candidates`: their qualified names, sorted; `tables`: the same tables. */
  | { kind: 'ambiguous'; candidates: string[]; tables: TableSchema[] }
  | { kind: 'not_found' };

export interface TableResolver {
  resolve(reference: string): Resolution;
  readonly size: number;
}

export type TableSource = ReadonlyMap<string, TableSchema> | readonly TableSchema[];

/**
 * The parts of a name written with SQL's double quotes, as prompts write warehouse names
 * (`main."Work Items"`, `"main"."Say ""hi"""`): quoted parts unquoted, plain parts as written;
 * undefined when the text is not such a name.
 */
function sqlQuotedParts(ref: string): string[] | undefined {
  const parts: string[] = [];
  let index = 0;
  for (;;) {
    let part = '';
    if (ref[index] === '"') {
      index += 1;
      for (;;) {
        if (index >= ref.length) return undefined;
        if (ref[index] === '"') {
          if (ref[index + 1] !== '"') break;
          index += 1;
        }
        part += ref[index];
        index += 1;
      }
      index += 1;
    } else {
      const end = ref.indexOf('.', index);
      part = ref.slice(index, end < 0 ? ref.length : end);
      if (part.includes('"') || part.trim() === '') return undefined;
      index += part.length;
    }
    parts.push(part);
    if (index >= ref.length) return parts;
    if (ref[index] !== '.') return undefined;
    index += 1;
  }
}

/**
 * Undoes the quoting of a reference, after trimming: names quoted as SQL quotes them (`main."Work Items"`,
 * the way prompts show warehouse names), one layer of backticks or double quotes around the whole
 * reference, and backticks around both parts of `schema`.`table`. Returns '' for a reference with nothing left.
 */
export function normaliseTableRef(reference: string): string {
  const ref = reference.trim();
  if (ref.includes('"')) {
    const parts = sqlQuotedParts(ref);
    if (parts) return parts.join('.').trim();
  }
  const pair = /^(`)([^`]+)`\.(`)([^`]+)`$/.exec(ref);
  if (pair) return `${pair[2] as string}.${pair[4] as string}`;
  const outer = /^(`|")(.*)\1$/s.exec(ref);
  return outer ? (outer[2] as string).trim() : ref;
}

function addTo(index: Map<string, TableSchema[]>, key: string, table: TableSchema): void {
  const list = index.get(key);
  if (!list) index.set(key, [table]);
  else if (!list.includes(table)) list.push(table);
}

function ambiguous(tables: readonly TableSchema[]): Resolution {
  const sorted = [...tables].sort((left, right) => (left.qualified < right.qualified ? -1 : left.qualified > right.qualified ? 1 : 0));
  return { kind: 'ambiguous', candidates: sorted.map((table) => table.qualified), tables: sorted };
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
      if (bare.length > 1) return ambiguous(bare);
      const folded = byLower.get(reference.toLowerCase()) ?? [];
      if (folded.length === 1) return { kind: 'found', table: folded[0] as TableSchema };
      if (folded.length > 1) return ambiguous(folded);
      return { kind: 'not_found' };
    },
  };
}
