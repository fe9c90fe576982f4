/**
 * Reads the exploration system prompt: the Level-0 catalog lines (`schema.table | Nc | 1.2K rows |
 * kw1, kw2 | -> t1, t2`, see src/schema/catalog.ts), the analysis areas list and the SQL dialect.
 */
import { parseRowCount } from '../text.js';
import type { AreaInfo, CatalogEntry, SqlDialectName } from '../types.js';

/** The qualified name runs to the first ` | `: names may hold spaces or any script (`main.Work Items`). */
const CATALOG_LINE = /^([^\s|][^|]*?\.[^|]*?[^\s|]) \| (\d+)c \| ([^|]+?) rows(?: \| (.*))?$/;
/** `1. **Funnel Conversion** (`conversion`) — description Keywords: a, b.` (prompt-assembly.ts). */
const AREA_LINE = /^\d+\. \*\*(.+?)\*\* \(`([^`]+)`\) — (.*?)(?: Keywords: (.*?)\.)?$/;

export function readCatalog(text: string): CatalogEntry[] {
  const entries: CatalogEntry[] = [];
  for (const line of text.split('\n')) {
    const match = CATALOG_LINE.exec(line.trim());
    if (!match) continue;
    const rest = (match[4] ?? '').split(' | ').map((part) => part.trim());
    let keywords: string[] = [];
    let joins: string[] = [];
    for (const part of rest) {
      if (part.startsWith('-> '))
        joins = part
          .slice(3)
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean);
      else if (part)
        keywords = part
          .split(',')
          .map((keyword) => keyword.trim())
          .filter(Boolean);
    }
    entries.push({
      qualified: match[1] as string,
      columnCount: Number(match[2]),
      rows: parseRowCount(match[3] as string),
      keywords,
      joins,
    });
  }
  return entries;
}

/** Whether the catalog says it left tables out (large warehouses): then a search is worth a step. */
export function catalogOmitsTables(text: string): boolean {
  return /# \d+ more tables not listed/.test(text);
}

export function readAreas(text: string): AreaInfo[] {
  const areas: AreaInfo[] = [];
  for (const line of text.split('\n')) {
    const match = AREA_LINE.exec(line.trim());
    if (!match) continue;
    areas.push({
      name: match[1] as string,
      id: match[2] as string,
      description: match[3] as string,
      keywords: (match[4] ?? '')
        .split(',')
        .map((keyword) => keyword.trim())
        .filter(Boolean),
    });
  }
  return areas;
}

export function readDialect(text: string): SqlDialectName {
  const match = /SQL dialect:\s*\**\s*([A-Za-z]+)/.exec(text);
  return match && /postgre/i.test(match[1] as string) ? 'postgres' : 'duckdb';
}

/**
 * What the team wants to learn, when the prompt's base context says it: a generated pack's line
 * (`The team wants to learn: …`) or the profile's `goal` field.
 */
export function readGoal(text: string): string {
  const line = /The team wants to learn:\s*(.+)/.exec(text)?.[1]?.trim();
  if (line) return line;
  const field = /"goal"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(text)?.[1];
  return field ? field.replace(/\\(.)/g, '$1').trim() : '';
}
