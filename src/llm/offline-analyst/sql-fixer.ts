/**
 * SQL fix: when an unknown column is the error and the prompt lists the table's columns, replace it
 * with the closest listed column; otherwise return the query unchanged, which tells the engine to stop
 * fixing. Never invents a name that is not listed.
 */
import type { LlmRequest } from '../port.js';
import { userTexts } from './phase.js';
import { compareText, editDistance } from './text.js';

/** An unknown column in the error messages of DuckDB, PostgreSQL, MySQL/MariaDB and ClickHouse (old and current). */
const UNKNOWN_COLUMN = [
  /Referenced column "([^"]+)" not found/i,
  /column "?(?:[\w]+\.)?([\w]+)"? does not exist/i,
  /column "([^"]+)" not found/i,
  /Values list "[^"]*" does not have a column named "([^"]+)"/i,
  /Unknown column '(?:[\w]+\.)?([\w]+)' in /i,
  /Missing columns: '(?:[\w]+\.)?([\w]+)'/i,
  /Unknown (?:expression )?identifier:? [`']?(?:[\w]+\.)?([\w]+)[`']?/i,
];
/** A replacement must be this close (edits per character of the wrong name). */
const MAX_EDITS_PER_CHAR = 0.4;

function section(prompt: string, heading: string): string {
  const start = prompt.indexOf(`## ${heading}`);
  if (start < 0) return '';
  const rest = prompt.slice(start + heading.length + 3);
  const end = rest.indexOf('\n## ');
  return end < 0 ? rest : rest.slice(0, end);
}

function listedColumns(prompt: string): string[] {
  const columns = new Set<string>();
  for (const line of section(prompt, 'Columns of the tables the query touches').split('\n')) {
    // `- main.orders: order_id BIGINT, …`; a table name that is not plain is quoted as SQL quotes it
    const match = /^- (?:[\w]+|"(?:[^"]|"")*")(?:\.(?:[\w]+|"(?:[^"]|"")*"))*: (.*)$/.exec(line.trim());
    if (!match) continue;
    for (const part of (match[1] as string).split(', ')) {
      const name = part.trim().split(' ')[0];
      if (name && /^[\w]+$/.test(name)) columns.add(name);
    }
  }
  return [...columns].sort(compareText);
}

export function fixedSql(prompt: string): string {
  const original = /```sql\n([\s\S]*?)\n```/.exec(section(prompt, 'The query'))?.[1] ?? '';
  const error = section(prompt, 'The error');
  const wrong = UNKNOWN_COLUMN.map((pattern) => pattern.exec(error)?.[1]).find((name) => name !== undefined);
  if (!wrong) return original;
  const columns = listedColumns(prompt);
  const best = columns
    .map((name) => ({ name, distance: editDistance(wrong, name) }))
    .sort((left, right) => left.distance - right.distance || compareText(left.name, right.name))[0];
  if (!best || best.distance === 0 || best.distance > Math.max(1, Math.floor(wrong.length * MAX_EDITS_PER_CHAR))) return original;
  return original.replace(new RegExp(`(^|[^\\w"])${wrong.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w"])`, 'g'), `$1${best.name}`);
}

export function fixSql(request: LlmRequest): string {
  return `\`\`\`sql\n${fixedSql(userTexts(request)[0] ?? '')}\n\`\`\``;
}
