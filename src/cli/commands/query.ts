/** `assay query`: run one SQL statement through exactly the agent's guarded path (guard, read-only engine, limits). */
import type { Command } from 'commander';
import { ValidationError } from '../../errors/index.js';
import type { QueryResult } from '../../warehouse/index.js';
import { printJson, renderTable } from '../output.js';

interface QueryCommandOptions {
  warehouse?: string;
  json?: boolean;
  maxRows?: string;
}

function parseMaxRows(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) {
    throw new ValidationError(`--max-rows must be a positive integer (got ${JSON.stringify(value)})`, [
      { path: 'max-rows', message: 'a positive integer' },
    ]);
  }
  return parsed;
}

function summaryLine(result: QueryResult): string {
  const rows = `${result.rowCount} row${result.rowCount === 1 ? '' : 's'}`;
  return `${rows}${result.truncated ? ` (truncated at ${result.rowCount}; raise --max-rows to see more)` : ''} in ${result.elapsedMs} ms`;
}

export function register(program: Command): void {
  program
    .command('query')
    .description('run one read-only SQL query through the same guarded path the agent uses (exit 3 when refused, 2 when it does not parse)')
    .argument('<sql>', 'a single SELECT statement (WITH … SELECT, UNION and VALUES included)')
    .option('-w, --warehouse <url>', 'warehouse URL (duckdb:file.duckdb, duckdb::memory:, postgres://…); default: the configured warehouse')
    .option('--json', 'print the result as JSON (columns, rows, rowCount, truncated, elapsedMs)')
    .option('--max-rows <n>', 'rows to fetch at most; default: the configured sql.maxRows')
    .addHelpText(
      'after',
      `\nA refused statement (anything but one SELECT, file or network readers, side-effecting functions) is not executed;\nthe reason goes to stderr and the exit code is 3. SQL that does not parse is reported as a syntax error (exit 2), not run either.\n\nExamples:\n  assay query "SELECT count(*) FROM orders"\n  assay query --warehouse duckdb:shop.duckdb --json --max-rows 5 "SELECT * FROM customers"`,
    )
    .action(async (sql: string, options: QueryCommandOptions, command: Command) => {
      const [{ cliConfig }, { assertSafeSql, openWarehouse, parseWarehouseUrl }] = await Promise.all([
        import('../context.js'),
        import('../../warehouse/index.js'),
      ]);
      const config = cliConfig(command);
      const maxRows = parseMaxRows(options.maxRows) ?? config.sql.maxRows;
      const url = options.warehouse ?? config.warehouse;
      // refuse before opening anything: an unsafe statement needs no warehouse to be refused
      await assertSafeSql(sql, parseWarehouseUrl(url).engine);
      const warehouse = await openWarehouse(url, {
        files: url === config.warehouse ? config.warehouseFiles : {},
        maxRows,
        timeoutMs: config.sql.timeoutMs,
        maxStoredBytes: config.sql.maxStoredBytes,
      });
      try {
        const result = await warehouse.query(sql, { maxRows });
        if (options.json === true) {
          printJson(result);
          return;
        }
        const head = result.columns.map((column) => column.name);
        process.stdout.write(
          `${renderTable(
            head,
            result.rows.map((row) => head.map((name) => row[name])),
          )}\n${summaryLine(result)}\n`,
        );
      } finally {
        await warehouse.close();
      }
    });
}
