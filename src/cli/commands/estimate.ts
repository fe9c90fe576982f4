/** `assay estimate`: what a run will cost in LLM tokens and dollars, before it starts. */
import type { Command } from 'commander';
import type { RunCostEstimate } from '../../discovery/cost-estimate.js';
import { DEFAULT_CATALOG_TOKENS } from '../../schema/constants.js';
import { ValidationError } from '../../errors/index.js';
import { printJson, renderTable } from '../output.js';

interface EstimateCommandOptions {
  llm?: string;
  maxSteps?: string;
  pack: string;
  category?: string;
  catalogTokens: string;
  json?: boolean;
}

function positiveInteger(value: string, flag: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new ValidationError(`${flag} must be a positive integer (got ${JSON.stringify(value)})`, [
      { path: flag, message: 'a positive integer' },
    ]);
  return parsed;
}

function formatUsd(value: number): string {
  return `$${value.toFixed(value < 1 ? 4 : 2)}`;
}

function printEstimate(estimate: RunCostEstimate, pack: string, areas: number): void {
  const rows = Object.entries(estimate.breakdown).map(([phase, cost]) => [
    phase,
    cost.calls,
    cost.input_tokens.toLocaleString('en-US'),
    cost.cache_read_tokens.toLocaleString('en-US'),
    cost.output_tokens.toLocaleString('en-US'),
    formatUsd(cost.cost_usd),
    formatUsd(cost.cost_usd_cached),
  ]);
  const { llm } = estimate;
  rows.push([
    'total',
    '',
    llm.input_tokens.toLocaleString('en-US'),
    llm.cache_read_tokens.toLocaleString('en-US'),
    llm.output_tokens.toLocaleString('en-US'),
    formatUsd(llm.cost_usd),
    formatUsd(llm.cost_usd_cached),
  ]);
  process.stdout.write(`LLM cost estimate for ${llm.model}, pack "${pack}" (${areas} areas)\n`);
  process.stdout.write(
    `${renderTable(['phase', 'calls', 'input tokens', 'cached', 'output tokens', 'cost without caching', 'cost with caching'], rows)}\n`,
  );
  const share = llm.input_tokens === 0 ? 0 : Math.round((100 * llm.cache_read_tokens) / llm.input_tokens);
  process.stdout.write(
    llm.cache_read_tokens > 0
      ? `prompt caching (on by default): ${share} % of the input read from the cache, ${formatUsd(llm.cost_usd_cached)} instead of ${formatUsd(llm.cost_usd)}\n`
      : `prompt caching: nothing cached for this model (${estimate.assumptions.prompt_cache})\n`,
  );
  process.stdout.write('assumptions:\n');
  for (const [name, value] of Object.entries(estimate.assumptions)) process.stdout.write(`  ${name}: ${value}\n`);
}

export function register(program: Command): void {
  program
    .command('estimate')
    .description('estimate the LLM tokens and cost of a discovery run, with and without prompt caching (exploration modelled step by step)')
    .option('--llm <spec>', 'model as provider:model (e.g. anthropic:claude-sonnet-5-5); default: the configured llm')
    .option('--max-steps <n>', 'exploration steps; default: the configured run.maxSteps')
    .option('--pack <slug>', 'domain pack whose prompts are measured', 'ecommerce')
    .option('--category <id>', 'pack category (adds its areas)')
    .option(
      '--catalog-tokens <n>',
      'tokens of the Level-0 schema catalog (see the schema index of the project)',
      String(DEFAULT_CATALOG_TOKENS),
    )
    .option('--json', 'print the estimate as JSON')
    .addHelpText(
      'after',
      `\nPrices come from the model catalog (override them with config "models"), cache reads and writes at the catalog's\ncache prices under the provider's caching rules. The estimate assumes every step runs (no early "done") and leaves\nout SQL-fix and reformat calls.\n\nExamples:\n  assay estimate --llm anthropic:claude-sonnet-5-5 --max-steps 40\n  assay estimate --llm openai:gpt-5.4 --pack gaming --catalog-tokens 12000 --json`,
    )
    .action(async (options: EstimateCommandOptions, command: Command) => {
      const [
        { cliConfig },
        { lookupModel },
        { loadPack, resolveAreas },
        { directoryPackLibrary },
        { warnIfDeprecated },
        { estimatePackRunCost },
      ] = await Promise.all([
        import('../context.js'),
        import('../../llm/catalog.js'),
        import('../../discovery/packs/pack-loader.js'),
        import('../../pack-files/directory.js'),
        import('../../llm/model-warnings.js'),
        import('../../discovery/packs/pack-cost-estimate.js'),
      ]);
      const config = cliConfig(command);
      const spec = options.llm ?? config.llm;
      const { entry, known } = lookupModel(spec, config.models);
      if (!known) {
        process.stderr.write(
          `warning: model "${spec}" is not in the catalog; using a ${entry.contextWindow}-token window and ${entry.outputPricePerMTok > 0 ? "the provider's highest prices" : 'zero prices'} (set config "models" to fix)\n`,
        );
      }
      warnIfDeprecated(spec, entry, { warn: (_fields, message) => process.stderr.write(`warning: ${message}\n`) });
      const pack = loadPack(directoryPackLibrary(), options.pack, { includeHidden: config.enableSystemTestPack });
      const areas = resolveAreas(pack, options.category);
      const estimate = estimatePackRunCost({
        entry,
        pack,
        areas,
        maxSteps: options.maxSteps === undefined ? config.run.maxSteps : positiveInteger(options.maxSteps, '--max-steps'),
        catalogTokens: positiveInteger(options.catalogTokens, '--catalog-tokens'),
        protocol: config.llmProtocol,
      });
      if (options.json) printJson(estimate);
      else printEstimate(estimate, pack.slug, areas.length);
    });
}
