/**
 * Files by URL (`duckdb:events.csv`, `file:data/*.csv`): the patterns are expanded (DuckDB's own
 * `glob`, so what matches is what DuckDB would read) and each file becomes a table named after it
 * (`data/Order Items.csv` → `order_items`). A pattern that matches nothing, a file that is missing,
 * or two files that would get the same table name stop here with one error naming them.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { ConfigError } from '../../errors/index.js';

const GLOB = /[*?[]/;
/** `.csv`, `.csv.gz`, `.parquet` … : everything after the first dot of the base name. */
const EXTENSIONS = /\.(csv|tsv|txt|parquet|json|jsonl|ndjson)(\.gz|\.zst)?$/i;

/** A file's table name: its base name without extensions, lower case, non-identifier characters as `_`. */
export function tableNameForFile(file: string): string {
  const base = path.basename(file).replace(EXTENSIONS, '');
  const name = base
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (name.length === 0) return 'file_table';
  // `_assay…` tables are hidden from the agent; a leading digit is not an identifier
  return /^\d/.test(name) || name.startsWith('_assay') ? `t_${name}` : name;
}

async function expand(pattern: string): Promise<string[]> {
  const instance = await DuckDBInstance.create(':memory:');
  try {
    const connection = await instance.connect();
    const reader = await connection.runAndReadAll('SELECT file FROM glob($1) ORDER BY file', [pattern]);
    connection.closeSync();
    return reader.getRows().map((row) => String(row[0]));
  } finally {
    instance.closeSync();
  }
}

/** `{ table: absolute file }` for the URL's patterns, in name order. */
export async function resolveFileTables(patterns: readonly string[]): Promise<Record<string, string>> {
  const tables: Record<string, string> = {};
  for (const pattern of patterns) {
    let files: string[];
    if (GLOB.test(pattern)) {
      files = await expand(pattern);
      if (files.length === 0) throw new ConfigError(`no file matches ${pattern}; check the path and the pattern of the warehouse URL`);
    } else {
      if (!existsSync(pattern)) throw new ConfigError(`warehouse file ${pattern} does not exist; check the path in the warehouse URL`);
      files = [pattern];
    }
    for (const file of files) {
      if (!EXTENSIONS.test(file)) continue;
      const table = tableNameForFile(file);
      const other = tables[table];
      if (other !== undefined && other !== file) {
        throw new ConfigError(
          `warehouse files ${other} and ${file} would both be table ${table}; rename one, or load them with ASSAY_WAREHOUSE_FILES`,
        );
      }
      tables[table] = path.resolve(file);
    }
  }
  if (Object.keys(tables).length === 0) throw new ConfigError(`no CSV, TSV, Parquet or JSON file matches ${patterns.join(', ')}`);
  return tables;
}
