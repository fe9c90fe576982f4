/** `assay demo-data`: generate a deterministic demo DuckDB warehouse with planted patterns and its truths file. */
import type { Command } from 'commander';
import { ValidationError } from '../../errors/index.js';
import { DEMO_KINDS, parseDemoKind } from '../../demo/demo-kind.js';
import { DEFAULT_DEMO_SCALE, DEFAULT_DEMO_SEED } from '../../demo/demo-size.js';
import type { DemoWarehouseSummary } from '../../demo/index.js';
import { printJson, renderTable } from '../output.js';

interface DemoDataCommandOptions {
  kind: string;
  out?: string;
  into?: string;
  seed?: string;
  scale?: string;
  force?: boolean;
  truths?: boolean;
  json?: boolean;
}

/** Above this many tables (the ERP demo) the listing shows the largest ones and a summary line. */
const LISTED_TABLES_LIMIT = 25;

function parseNumberOption(name: string, value: string | undefined, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  const valid = value.trim() !== '' && Number.isFinite(parsed) && (!integer || Number.isSafeInteger(parsed));
  if (!valid) {
    throw new ValidationError(`--${name} must be ${integer ? 'an integer' : 'a number'} (got ${JSON.stringify(value)})`, [
      { path: name, message: integer ? 'an integer' : 'a number' },
    ]);
  }
  return parsed;
}

/** The human summary: tables and rows (largest first when there are many), truths path, elapsed seconds. */
export function formatDemoSummary(summary: Pick<DemoWarehouseSummary, 'path' | 'tables' | 'truthsPath' | 'elapsedMs'>): string {
  const byRowsDescending = [...summary.tables].sort((left, right) => right.rows - left.rows || left.name.localeCompare(right.name));
  const listed = summary.tables.length > LISTED_TABLES_LIMIT ? byRowsDescending.slice(0, LISTED_TABLES_LIMIT) : summary.tables;
  const lines = [
    renderTable(
      ['table', 'rows'],
      listed.map((table) => [table.name, table.rows.toLocaleString('en-US')]),
    ),
  ];
  if (listed.length < summary.tables.length) {
    const rest = summary.tables.length - listed.length;
    const empty = summary.tables.filter((table) => table.rows === 0).length;
    lines.push(
      `… and ${rest.toLocaleString('en-US')} more tables (${summary.tables.length.toLocaleString('en-US')} in all, ${empty.toLocaleString('en-US')} empty)`,
    );
  }
  const totalRows = summary.tables.reduce((sum, table) => sum + table.rows, 0);
  lines.push(`${summary.tables.length.toLocaleString('en-US')} tables, ${totalRows.toLocaleString('en-US')} rows → ${summary.path}`);
  if (summary.truthsPath !== null) lines.push(`truths: ${summary.truthsPath}`);
  lines.push(`generated in ${(summary.elapsedMs / 1000).toFixed(2)} s`);
  return `${lines.join('\n')}\n`;
}

export function register(program: Command): void {
  program
    .command('demo-data')
    .description('generate a deterministic demo DuckDB warehouse with planted patterns (--truths: plus <out>.truths.json describing them)')
    .requiredOption('-k, --kind <kind>', `which demo: ${DEMO_KINDS.join(', ')}`)
    .option('-o, --out <file>', 'DuckDB file to create (refused if it exists, unless --force); needed unless --into is given')
    .option(
      '--into <url>',
      'also load the demo into MySQL/MariaDB or ClickHouse (mysql://… or clickhouse://…, a login that may create tables)',
    )
    .option('--seed <n>', `seed for every random choice; same seed, same data (default ${DEFAULT_DEMO_SEED})`)
    .option('--scale <x>', `multiplier on entity counts (default ${DEFAULT_DEMO_SCALE})`)
    .option('-f, --force', 'replace an existing file at --out')
    .option(
      '--truths',
      'also write <out>.truths.json: the planted patterns, their keywords and check queries (what `assay eval` scores against)',
    )
    .option('--json', 'print the summary as JSON')
    .addHelpText(
      'after',
      `\nThe truths file (--truths) lists each planted pattern with keywords, tables and a check SELECT whose "value" must satisfy "expect".\n\nExamples:\n  assay demo-data --kind ecommerce --out shop.duckdb\n  assay demo-data --kind erp --out erp.duckdb --seed 7 --force --truths
  assay demo-data --kind ecommerce --into mysql://loader:pw@127.0.0.1:3306/shop
  assay demo-data --kind ecommerce --out shop.duckdb --into clickhouse://default@127.0.0.1:8123/shop`,
    )
    .action(async (options: DemoDataCommandOptions) => {
      if (options.out === undefined && options.into === undefined) {
        throw new ValidationError('give --out FILE (a DuckDB file), --into URL (MySQL/MariaDB or ClickHouse), or both', [
          { path: 'out', message: 'required without --into' },
        ]);
      }
      const { mkdtemp, rm } = await import('node:fs/promises');
      const { tmpdir } = await import('node:os');
      const { join } = await import('node:path');
      const scratch = options.out === undefined ? await mkdtemp(join(tmpdir(), 'assay-demo-')) : undefined;
      try {
        const request = {
          kind: parseDemoKind(options.kind),
          out: options.out ?? join(scratch ?? '', `${options.kind}.duckdb`),
          seed: parseNumberOption('seed', options.seed, true),
          scale: parseNumberOption('scale', options.scale, false),
          overwrite: options.force === true,
          truths: options.truths === true,
        };
        const { generateDemoWarehouse, loadDemoInto } = await import('../../demo/index.js');
        const summary = await generateDemoWarehouse(request);
        const loaded = options.into === undefined ? undefined : await loadDemoInto(summary.path, options.into);
        const { truths: _truths, ...printed } = summary;
        if (options.json === true) printJson(loaded === undefined ? printed : { ...printed, loaded_into: loaded });
        else {
          if (options.out !== undefined) process.stdout.write(formatDemoSummary(summary));
          if (loaded !== undefined) {
            const { describeWarehouseTarget, parseWarehouseUrl } = await import('../../warehouse/warehouse-url.js');
            const rows = loaded.reduce((sum, table) => sum + table.rows, 0);
            process.stdout.write(
              `loaded ${loaded.length.toLocaleString('en-US')} tables, ${rows.toLocaleString('en-US')} rows into ${describeWarehouseTarget(parseWarehouseUrl(options.into ?? ''))}\n`,
            );
          }
        }
      } finally {
        if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
      }
    });
}
