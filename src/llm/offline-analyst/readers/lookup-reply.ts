/**
 * Reads lookup_schema replies (src/schema/lookup.ts `renderTableDetail`): "Schema for `t` (N rows):",
 * then `- col TYPE NULL|NOT NULL [category]` lines. Only columns seen here are ever used in SQL.
 */
import { parseRowCount } from '../text.js';

export interface LookedUpColumn {
  name: string;
  type: string;
  nullable: boolean;
  category: string;
}

export interface LookedUpTable {
  qualified: string;
  rows: number;
  columns: LookedUpColumn[];
}

const HEADER = /^Schema for `([^`]+)` \(([^)]*?) rows\):$/;
/** A column type as DuckDB and PostgreSQL write it, multi-word types included (`TIMESTAMP WITH TIME ZONE`, `character varying(20)`). */
const TYPE = String.raw`(?:character varying|double precision|(?:timestamp|time)(?:\(\d+\))? with(?:out)? time zone|[A-Za-z_][\w]*)(?:\([^()]*\))?(?:\[\])*`;
/** `- name TYPE NULL [category]`; the name may hold spaces (`Airport Name`), so the line is read from its end. */
const COLUMN = new RegExp(String.raw`^- (.+?) (${TYPE}) (NULL|NOT NULL) \[([a-z_]+)\]$`, 'i');

/** The reply quotes names that are not plain lower-case identifiers (`"Airport Name"`): read them back. */
function unquoteIdentifier(name: string): string {
  return name.length >= 2 && name.startsWith('"') && name.endsWith('"') ? name.slice(1, -1).replaceAll('""', '"') : name;
}

export function readLookupReply(text: string): LookedUpTable[] {
  const tables: LookedUpTable[] = [];
  let current: LookedUpTable | undefined;
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim();
    const header = HEADER.exec(line);
    if (header) {
      current = { qualified: header[1] as string, rows: parseRowCount(header[2] as string), columns: [] };
      tables.push(current);
      continue;
    }
    const column = COLUMN.exec(line);
    if (column && current) {
      current.columns.push({
        name: unquoteIdentifier(column[1] as string),
        type: column[2] as string,
        nullable: column[3] === 'NULL',
        category: column[4] as string,
      });
    }
  }
  return tables;
}
