import type { Command } from 'commander';
import { ValidationError } from '../../errors/index.js';
import { cliConfig, cliLogger } from '../context.js';
import { parsePackArgument, runDiscovery } from '../discovery-session.js';
import { printRunSummary } from '../run-summary.js';

function positiveInt(name: string) {
  return (value: string): number => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < 0)
      throw new ValidationError(`${name} must be a whole number ≥ 0, got "${value}"`, [{ path: name, message: 'not a whole number' }]);
    return number;
  };
}

export function register(program: Command): void {
  program
    .command('run')
    .description('Run a full discovery on a warehouse in this process and write run.json, result.json and report.html')
    .requiredOption('--pack <slug[:category]>', 'domain pack, optionally with a category, e.g. gaming:match3')
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
          pack: string;
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
        const overrides: Record<string, unknown> = {};
        if (options.warehouse) overrides.warehouse = options.warehouse;
        if (options.llm) overrides.llm = options.llm;
        const config = cliConfig(command, overrides);
        const { pack, category } = parsePackArgument(options.pack);
        const areas = options.areas
          ? options.areas
              .split(',')
              .map((area) => area.trim())
              .filter(Boolean)
          : [];
        const outcome = await runDiscovery(
          config,
          {
            projectId: options.project ?? `${pack}-project`,
            projectName: options.project ?? pack,
            pack,
            category,
            maxSteps: options.maxSteps ?? config.run.maxSteps,
            minSteps: options.minSteps ?? config.run.minSteps,
            areas,
            outDir: options.out,
            ...(options.quiet ? { quiet: true } : {}),
          },
          cliLogger(config),
        );
        printRunSummary(outcome);
        process.stdout.write(`\nreport: ${outcome.reportPath}\n`);
        if (outcome.run.status === 'failed') process.exitCode = 1;
      },
    );
}
