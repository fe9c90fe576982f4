/** `assay compact`: print the CompactResult digest of a JSON result, the same digest analysis prompts use. */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { compactResult, columnsFromRows, type ResultColumn } from '../../compaction/compact-result.js';
import type { Cell, Row } from '../../domain/index.js';
import { ValidationError, type ValidationIssue } from '../../errors/index.js';
import { printJson } from '../output.js';

const EXPECTED_INPUT =
  'expected a JSON array of row objects ([{"col": 1}, …]) or an object {"columns": [{"name": "col", "type": "BIGINT"} | "col", …], "rows": [{…}, …]}';

export function register(program: Command): void {
  program
    .command('compact')
    .description('print the CompactResult digest (per-column statistics + head/tail rows) of a JSON query result')
    .option('-i, --input <file>', 'JSON file with the rows, or - for stdin', '-')
    .addHelpText(
      'after',
      `\nInput: ${EXPECTED_INPUT}.\nCells must be strings, numbers, booleans or null; nested values are shown as JSON text.\n\nExamples:\n  assay compact --input rows.json\n  duckdb -json -c "select * from t" | assay compact`,
    )
    .action((options: { input: string }) => {
      const source = options.input === '-' ? 'stdin' : options.input;
      const text = readInput(options.input);
      const { columns, rows } = parseResultJson(text, source);
      printJson(compactResult(columns, rows));
    });
}

function readInput(input: string): string {
  try {
    return readFileSync(input === '-' ? 0 : input, 'utf8');
  } catch (error) {
    throw new ValidationError(`cannot read ${input === '-' ? 'stdin' : input}: ${(error as Error).message}`, [
      { path: 'input', message: 'a readable file or -' },
    ]);
  }
}

/** Parse and check the input, naming every problem and what was expected. */
export function parseResultJson(text: string, source: string): { columns: ResultColumn[]; rows: Row[] } {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new ValidationError(`${source} is not valid JSON (${(error as Error).message}); ${EXPECTED_INPUT}`, [
      { path: '', message: 'not JSON' },
    ]);
  }
  if (Array.isArray(document)) {
    const rows = parseRows(document, source, '');
    return { columns: columnsFromRows(rows), rows };
  }
  if (typeof document === 'object' && document !== null && 'rows' in document && Array.isArray(document.rows)) {
    const rows = parseRows(document.rows, source, 'rows');
    const declared = 'columns' in document ? document.columns : undefined;
    return { columns: declared === undefined ? columnsFromRows(rows) : parseColumns(declared, source), rows };
  }
  throw new ValidationError(`${source}: ${EXPECTED_INPUT}`, [{ path: '', message: 'neither an array nor an object with "rows"' }]);
}

function parseRows(values: unknown[], source: string, path: string): Row[] {
  const issues: ValidationIssue[] = [];
  const rows: Row[] = [];
  values.forEach((value, index) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      issues.push({ path: `${path}[${index}]`, message: 'expected an object mapping column name to value' });
      return;
    }
    const row: Row = {};
    for (const [name, cell] of Object.entries(value)) row[name] = toCell(cell);
    rows.push(row);
  });
  if (issues.length > 0) {
    throw new ValidationError(
      `${source}: ${issues.length} row(s) are not objects (first at ${issues[0]?.path || 'top level'}); ${EXPECTED_INPUT}`,
      issues.slice(0, 20),
    );
  }
  return rows;
}

function parseColumns(value: unknown, source: string): ResultColumn[] {
  const fail = (message: string): never => {
    throw new ValidationError(`${source}: "columns" ${message}; ${EXPECTED_INPUT}`, [{ path: 'columns', message }]);
  };
  if (!Array.isArray(value)) return fail('must be an array');
  return value.map((column, index) => {
    if (typeof column === 'string') return { name: column };
    if (typeof column === 'object' && column !== null && 'name' in column && typeof column.name === 'string') {
      const type = 'type' in column && typeof column.type === 'string' ? column.type : undefined;
      return type === undefined ? { name: column.name } : { name: column.name, type };
    }
    return fail(`entry ${index} must be a name or {"name": string, "type"?: string}`);
  });
}

function toCell(value: unknown): Cell {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return JSON.stringify(value) ?? null;
}
