/**
 * `assay pack generate`: a domain pack proposed for one warehouse (general pack's prompts specialised
 * with areas from the warehouse's own tables and columns), written as a pack directory that
 * `assay run --pack DIR` loads.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { GeneratedPack } from '../../discovery/packs/generation/index.js';
import { ValidationError } from '../../errors/index.js';
import { printJson, renderTable } from '../output.js';

interface GenerateOptions {
  warehouse?: string;
  describe?: string;
  goal?: string;
  out: string;
  llm?: string;
  slug?: string;
  name?: string;
  force?: boolean;
  json?: boolean;
}

/** Writes the pack's files under `directory`; refuses a non-empty directory unless `force`. */
export function writePackDirectory(directory: string, files: Readonly<Record<string, string>>, force: boolean): void {
  if (existsSync(directory) && readdirSync(directory).length > 0 && !force) {
    throw new ValidationError(`--out ${directory} exists and is not empty: choose another directory or pass --force to overwrite`, [
      { path: 'out', message: 'not empty' },
    ]);
  }
  for (const [path, text] of Object.entries(files)) {
    const target = join(directory, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
}

function summary(generated: GeneratedPack, directory: string) {
  return {
    directory,
    slug: generated.pack.slug,
    name: generated.pack.name,
    generator: generated.generator,
    hash: generated.hash,
    tables_read: generated.tableCount,
    areas: generated.proposal.areas.map((area) => ({
      id: area.id,
      name: area.name,
      priority: area.priority,
      keywords: area.keywords,
      description: area.description,
    })),
    notes: generated.notes,
  };
}

export function register(program: Command): void {
  const pack = program.command('pack').description('make domain packs (see also `assay packs list`)');
  pack
    .command('generate')
    .description('propose a domain pack for a warehouse from its schema (catalog, column roles, samples) and write it as a pack directory')
    .option('-w, --warehouse <url>', 'warehouse URL (duckdb:file.duckdb, postgres://…); default: the configured warehouse')
    .option('--describe <text>', 'what the data is, in your words (e.g. "IT incidents from our service desk")')
    .option('--goal <text>', 'what you want to learn (e.g. "which categories take longest to close")')
    .requiredOption('--out <dir>', 'directory to write the pack to (pack.json + prompts/)')
    .option('--llm <spec>', 'model that proposes the areas (default: config); offline:analyst derives them from the schema without a model')
    .option('--slug <slug>', 'pack slug (default: from the --out directory name)')
    .option('--name <name>', 'pack name (default: from the main tables)')
    .option('--force', 'write into a non-empty --out directory')
    .option('--json', 'print the summary as JSON')
    .addHelpText(
      'after',
      '\nThe pack is validated by the same loader as the shipped packs before it is written.\n\nExamples:\n  assay pack generate --warehouse duckdb:incidents.duckdb --out ./incidents-pack\n  assay pack generate --describe "IT incidents" --goal "what slows resolution" --out ./incidents-pack --llm anthropic:claude-sonnet-4-6\n  assay run --pack ./incidents-pack --warehouse duckdb:incidents.duckdb',
    )
    .action(async (options: GenerateOptions, command: Command) => {
      const [
        { bindLlm },
        { redactUrl },
        { GENERAL_PACK_SLUG, generatePack, packSlugFrom },
        { loadPack },
        { directoryPackLibrary },
        { parseLlmSpec },
        { createOfflineAnalyst },
        { discoverSchema },
        { openWarehouse },
        { cliConfig, cliLogger },
      ] = await Promise.all([
        import('../../composition.js'),
        import('../../config/index.js'),
        import('../../discovery/packs/generation/index.js'),
        import('../../discovery/packs/pack-loader.js'),
        import('../../pack-files/directory.js'),
        import('../../llm/factory.js'),
        import('../../llm/offline-analyst/index.js'),
        import('../../schema/index.js'),
        import('../../warehouse/index.js'),
        import('../context.js'),
      ]);
      const overrides: Record<string, unknown> = {};
      if (options.llm) overrides.llm = options.llm;
      const config = cliConfig(command, overrides);
      const logger = cliLogger(config, command);
      const url = options.warehouse ?? config.warehouse;
      const directory = resolve(options.out);
      const slug = options.slug ?? packSlugFrom(basename(directory));
      // the offline analyst answers no pack-generation prompt: its path is the deterministic generator
      const llm = parseLlmSpec(config.llm).provider === 'offline' ? undefined : bindLlm(config.llm, config, logger, createOfflineAnalyst());
      const warehouse = await openWarehouse(url, {
        files: url === config.warehouse ? config.warehouseFiles : {},
        timeoutMs: config.sql.timeoutMs,
      });
      let generated: GeneratedPack;
      try {
        const tables = await discoverSchema(warehouse, {
          onTableError: (table, error) => logger.warn({ table: `${table.schema}.${table.name}`, error: error.message }, 'table skipped'),
        });
        generated = await generatePack({
          tables,
          warehouse,
          slug,
          basePack: loadPack(directoryPackLibrary(), GENERAL_PACK_SLUG),
          ...(options.name ? { name: options.name } : {}),
          ...(options.describe ? { describe: options.describe } : {}),
          ...(options.goal ? { goal: options.goal } : {}),
          ...(llm ? { llm, protocol: config.llmProtocol } : {}),
        });
      } finally {
        await warehouse.close();
      }
      writePackDirectory(directory, generated.files, options.force === true);
      if (options.json) {
        printJson(summary(generated, directory));
        return;
      }
      process.stdout.write(
        `${renderTable(
          ['area', 'priority', 'keywords'],
          generated.proposal.areas.map((area) => [`${area.id}: ${area.name}`, area.priority, area.keywords.join(', ')]),
        )}\n`,
      );
      for (const note of generated.notes) process.stdout.write(`note: ${note}\n`);
      process.stdout.write(
        `pack "${generated.pack.slug}" (${generated.generator === 'llm' ? `proposed by ${config.llm}` : 'derived from the schema'}, ${generated.tableCount} tables read) written to ${directory}\nrun it: assay run --pack ${options.out} --warehouse ${redactUrl(url)}\n`,
      );
    });
}
