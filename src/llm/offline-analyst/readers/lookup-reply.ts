/**
 * Reads lookup_schema replies (src/schema/lookup.ts `renderTableDetail`): "Schema for t (N rows):", then
 * `- col TYPE NULL|NOT NULL [category]` lines, names quoted as SQL quotes them, a column's comment after
 * its category. Only columns seen here are ever used in SQL.
 */
import { readPromptName, unquotePromptName } from '../../data-fence.js';
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

const HEADER_START = 'Schema for ';
const HEADER_END = /^ \(([^)]*?) rows\):$/;
/** A column type as DuckDB and PostgreSQL write it, multi-word types included (`TIMESTAMP WITH TIME ZONE`, `character varying(20)`). */
const TYPE = String.raw`(?:character varying|double precision|(?:timestamp|time)(?:\(\d+\))? with(?:out)? time zone|[A-Za-z_][\w]*)(?:\([^()]*\))?(?:\[\])*`;
/** `- name TYPE NULL [category] comment "…"`; the name may hold spaces (`"Airport Name"`), so the line is read from its end. */
const COLUMN = new RegExp(String.raw`^- (.+?) (${TYPE}) (NULL|NOT NULL) \[([a-z_]+)\](?: comment "(?:[^"\\]|\\.)*")?$`, 'i');

/** `Schema for main."Work Items" (1.2K rows):` → the table's qualified name and its rows. */
function readHeader(line: string): { qualified: string; rows: number } | undefined {
  if (!line.startsWith(HEADER_START)) return undefined;
  const name = readPromptName(line, HEADER_START.length);
  const end = name ? HEADER_END.exec(line.slice(name.end)) : null;
  return name && end ? { qualified: name.parts.join('.'), rows: parseRowCount(end[1] as string) } : undefined;
}

export function readLookupReply(text: string): LookedUpTable[] {
  const tables: LookedUpTable[] = [];
  let current: LookedUpTable | undefined;
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim();
    const header = readHeader(line);
    if (header) {
      current = { ...header, columns: [] };
      tables.push(current);
      continue;
    }
    const column = COLUMN.exec(line);
    if (column && current) {
      current.columns.push({
        name: unquotePromptName(column[1] as string),
        type: column[2] as string,
        nullable: column[3] === 'NULL',
        category: column[4] as string,
      });
    }
  }
  return tables;
}
