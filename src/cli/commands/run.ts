import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { AssayConfig } from '../../config/index.js';
import { ValidationError } from '../../errors/index.js';
import type { Logger } from '../../logging/index.js';

function positiveInt(name: string) {
  return (value: string): number => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < 0)
      throw new ValidationError(`${name} must be a whole number ≥ 0, got "${value}"`, [{ path: name, message: 'not a whole number' }]);
    return number;
  };
}

/**
 * The pack of a run that names none: the shipped domain pack whose areas the warehouse's table and
 * column names match, else the general pack. Says which and why on stdout.
 */
async function packForWarehouse(config: AssayConfig, logger: Logger): Promise<string> {
  const [{ GENERAL_PACK_SLUG, choosePackForTables }, { loadPacks }, { discoverSchema }, { openWarehouse }] = await Promise.all([
    import('../../discovery/packs/generation/index.js'),
    import('../../discovery/packs/pack-loader.js'),
    import('../../schema/index.js'),
    import('../../warehouse/index.js'),
  ]);
  const warehouse = await openWarehouse(config.warehouse, { files: config.warehouseFiles, timeoutMs: config.sql.timeoutMs });
  const tables = await discoverSchema(warehouse, {
    onTableError: (table, error) => logger.warn({ table: `${table.schema}.${table.name}`, error: error.message }, 'table skipped'),
  }).finally(() => warehouse.close());
  const choice = choosePackForTables(tables, loadPacks({ includeHidden: config.enableSystemTestPack }), GENERAL_PACK_SLUG);
  const best = choice.scores[0];
  const bestText = best ? `best: ${best.slug}, ${best.matchedAreas} of ${best.areas} areas` : 'no domain packs';
  process.stdout.write(
    choice.fallback
      ? `no --pack given and no domain pack matches this warehouse (${bestText}): using the general pack "${GENERAL_PACK_SLUG}"\n`
      : `no --pack given: using the "${choice.slug}" pack (${best?.matchedAreas} of ${best?.areas} of its areas match the warehouse's tables)\n`,
  );
  return choice.slug;
}

export function register(program: Command): void {
  program
    .command('run')
    .description('Run a full discovery on a warehouse in this process and write run.json, result.json and report.html')
    .option(
      '--pack <slug[:category]|dir>',
      'domain pack, optionally with a category (gaming:match3), or a pack directory (assay pack generate); default: the shipped pack that matches the warehouse, else general',
    )
    .option('--warehouse <url>', 'duckdb:FILE, duckdb::memory: or postgres://user@host/db (default: config)')
    .option('--llm <provider:model>', 'e.g. anthropic:claude-sonnet-4-6, openai:gpt-5.4-mini, offline:analyst (default: config)')
    .option('--max-steps <n>', 'exploration steps', positiveInt('--max-steps'))
    .option('--min-steps <n>', 'reject "done" before this step', positiveInt('--min-steps'))
    .option('--areas <ids>', 'comma-separated area ids (default: every area of the pack)')
    .option('--project <id>', 'project id (runs of one project share previous context and feedback)')
    .option('--out <dir>', 'output directory', 'assay-output')
    .option('--quiet', 'no progress output')
    .action(
      async (
        options: {
          pack?: string;
          warehouse?: string;
          llm?: string;
          maxSteps?: number;
          minSteps?: number;
          areas?: string;
          project?: string;
          out: string;
          quiet?: boolean;
        },
        command: Command,
      ) => {
        const [{ cliConfig, cliLogger }, { isPackPath, loadPack }, { parsePackArgument, runDiscovery }, { printRunSummary }] =
          await Promise.all([
            import('../context.js'),
            import('../../discovery/packs/pack-loader.js'),
            import('../discovery-session.js'),
            import('../run-summary.js'),
          ]);
        const overrides: Record<string, unknown> = {};
        if (options.warehouse) overrides.warehouse = options.warehouse;
        if (options.llm) overrides.llm = options.llm;
        const config = cliConfig(command, overrides);
        const logger = cliLogger(config);
        const { pack, category } = parsePackArgument(options.pack ?? (await packForWarehouse(config, logger)));
        // a pack directory is recorded by its absolute path, and names the project by its slug
        const packRef = isPackPath(pack) ? resolve(pack) : pack;
        const packSlug = isPackPath(pack) ? loadPack(packRef).slug : pack;
        const areas = options.areas
          ? options.areas
              .split(',')
              .map((area) => area.trim())
              .filter(Boolean)
          : [];
        const outcome = await runDiscovery(
          config,
          {
            projectId: options.project ?? `${packSlug}-project`,
            projectName: options.project ?? packSlug,
            pack: packRef,
            category,
            maxSteps: options.maxSteps ?? config.run.maxSteps,
            minSteps: options.minSteps ?? config.run.minSteps,
            areas,
            outDir: options.out,
            ...(options.quiet ? { quiet: true } : {}),
          },
          logger,
        );
        printRunSummary(outcome);
        process.stdout.write(`\nreport: ${outcome.reportPath}\n`);
        if (outcome.run.status === 'failed') process.exitCode = 1;
      },
    );
}
