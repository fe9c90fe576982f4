/**
 * Reads the exploration system prompt: the Level-0 catalog lines (`schema.table | Nc | 1.2K rows |
 * kw1, kw2 | -> t1, t2 | comment "…"`, names quoted as SQL quotes them, see src/schema/catalog.ts), the
 * analysis areas list and the SQL dialect.
 */
import { readPromptName } from '../../data-fence.js';
import { parseRowCount } from '../text.js';
import type { AreaInfo, CatalogEntry, SqlDialectName } from '../types.js';

/** After the name: ` | 6c | 1.2K rows`. */
const COUNTS = /^ \| (\d+)c \| ([^|]+?) rows/;
/** A table line without quoted names (a catalog written by hand): the name runs to the first ` | `. */
const PLAIN_LINE = /^([^\s|"][^|"]*?\.[^|"]*?[^\s|"]) \| (\d+)c \| ([^|]+?) rows(?: \| (.*))?$/;
/** `1. **Funnel Conversion** (`conversion`) — description Keywords: a, b.` (prompt-assembly.ts). */
const AREA_LINE = /^\d+\. \*\*(.+?)\*\* \(`([^`]+)`\) — (.*?)(?: Keywords: (.*?)\.)?$/;
const SEPARATOR = ' | ';

/** Join targets after `-> `: names quoted as SQL quotes them, separated by `, `; returns them and where they end. */
function readJoins(line: string, start: number): { joins: string[]; end: number } {
  const joins: string[] = [];
  let index = start;
  for (;;) {
    const name = readPromptName(line, index);
    if (!name) break;
    joins.push(name.parts.join('.'));
    index = name.end;
    if (!line.startsWith(', ', index)) break;
    index += 2;
  }
  return { joins, end: index };
}

/** Where the JSON string starting at `start` ends (just after its closing quote). */
function jsonStringEnd(line: string, start: number): number {
  let index = start + 1;
  while (index < line.length && line[index] !== '"') index += line[index] === '\\' ? 2 : 1;
  return Math.min(line.length, index + 1);
}

function splitList(text: string): string[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

function readLine(line: string): CatalogEntry | undefined {
  const name = readPromptName(line);
  const counts = name && name.parts.length >= 2 ? COUNTS.exec(line.slice(name.end)) : null;
  if (!name || !counts) return readPlainLine(line);
  const entry: CatalogEntry = {
    qualified: name.parts.join('.'),
    columnCount: Number(counts[1]),
    rows: parseRowCount(counts[2] as string),
    keywords: [],
    joins: [],
  };
  let index = name.end + counts[0].length;
  while (line.startsWith(SEPARATOR, index)) {
    index += SEPARATOR.length;
    if (line.startsWith('-> ', index)) {
      const read = readJoins(line, index + 3);
      entry.joins = read.joins;
      index = read.end;
    } else if (line.startsWith('comment "', index)) {
      index = jsonStringEnd(line, index + 'comment '.length);
    } else {
      const end = line.indexOf(SEPARATOR, index);
      entry.keywords = splitList(line.slice(index, end < 0 ? line.length : end));
      index = end < 0 ? line.length : end;
    }
  }
  return entry;
}

function readPlainLine(line: string): CatalogEntry | undefined {
  const match = PLAIN_LINE.exec(line);
  if (!match) return undefined;
  const entry: CatalogEntry = {
    qualified: match[1] as string,
    columnCount: Number(match[2]),
    rows: parseRowCount(match[3] as string),
    keywords: [],
    joins: [],
  };
  for (const part of (match[4] ?? '').split(SEPARATOR).map((text) => text.trim())) {
    if (part.startsWith('-> ')) entry.joins = splitList(part.slice(3));
    else if (part) entry.keywords = splitList(part);
  }
  return entry;
}

export function readCatalog(text: string): CatalogEntry[] {
  const entries: CatalogEntry[] = [];
  for (const line of text.split('\n')) {
    const entry = readLine(line.trim());
    if (entry) entries.push(entry);
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

/** The engine the prompt's "SQL dialect:" line names (see DIALECT_DISPLAY_NAMES); DuckDB when it names none. */
export function readDialect(text: string): SqlDialectName {
  const named = (/SQL dialect:\s*\**\s*([A-Za-z]+)/.exec(text)?.[1] ?? '').toLowerCase();
  if (named.startsWith('postgre')) return 'postgres';
  if (named === 'mysql' || named === 'mariadb') return 'mysql';
  if (named === 'clickhouse' || named === 'bigquery' || named === 'snowflake') return named;
  return 'duckdb';
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
