import type { Command } from 'commander';
import { EXIT_CODES_HELP } from '../exit-codes.js';

/** Commander parser of a step count: the same limits and words as the API's `max_steps` / `min_steps`. */
export function stepCountOption(setting: 'max_steps' | 'min_steps', flag: string) {
  return async (value: string): Promise<number> => (await import('../../common/run-limits.js')).parseStepCount(setting, flag, value);
}

export interface RunCommandOptions {
  pack?: string;
  warehouse?: string;
  llm?: string;
  maxSteps?: number;
  minSteps?: number;
  areas?: string;
  project?: string;
  out: string;
  quiet?: boolean;
  json?: boolean;
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
    .option('--max-steps <n>', 'exploration steps, 1-500 (default: config, 40)')
    .option('--min-steps <n>', 'reject "done" before this step, 0-500 (default: config, 0)')
    .option('--areas <ids>', 'comma-separated area ids (default: every area of the pack)')
    .option(
      '--project <id>',
      'project id; default: the project of this warehouse and pack (created on first use). Runs of one project share previous context and feedback',
    )
    .option('--out <dir>', 'output directory (files go to <dir>/<runId>/)', 'assay-output')
    .option('--quiet', 'no progress output')
    .option(
      '--json',
      'print one JSON object instead of the summary: run_id, status, run_type, output_dir, report_path and the result document (insights with their claim and validation); no progress output',
    )
    .addHelpText(
      'after',
      `\nEvery input (--out, limits, pack, areas, warehouse, model, project) is checked before anything is created.\nctrl-C or SIGTERM cancels the run cleanly: its steps are kept and \`assay runs resume <runId>\` continues it.\n\n${EXIT_CODES_HELP}`,
    )
    .action(
      async (options: Omit<RunCommandOptions, 'maxSteps' | 'minSteps'> & { maxSteps?: string; minSteps?: string }, command: Command) => {
        const [
          { parseStepCount },
          { cliConfig, cliLogger },
          { parsePackArgument, runDiscovery },
          { printRunSummary, runJson },
          { exitCodeForSignal },
          { printJson },
        ] = await Promise.all([
          import('../../common/run-limits.js'),
          import('../context.js'),
          import('../discovery-session.js'),
          import('../run-summary.js'),
          import('../interrupts.js'),
          import('../output.js'),
        ]);
        // the limits first: nothing else is read while a flag is wrong
        const maxSteps = options.maxSteps === undefined ? undefined : parseStepCount('max_steps', '--max-steps', options.maxSteps);
        const minSteps = options.minSteps === undefined ? undefined : parseStepCount('min_steps', '--min-steps', options.minSteps);
        const overrides: Record<string, unknown> = {};
        if (options.warehouse) overrides.warehouse = options.warehouse;
        if (options.llm) overrides.llm = options.llm;
        const config = cliConfig(command, overrides);
        const logger = cliLogger(config, command);
        const pack = options.pack === undefined ? undefined : parsePackArgument(options.pack);
        const areas = options.areas
          ? options.areas
              .split(',')
              .map((area) => area.trim())
              .filter(Boolean)
          : [];
        const effectiveMax = maxSteps ?? config.run.maxSteps;
        const outcome = await runDiscovery(
          config,
          {
            projectId: options.project,
            pack: pack?.pack,
            category: pack?.category,
            maxSteps: effectiveMax,
            minSteps: minSteps ?? Math.min(config.run.minSteps, effectiveMax),
            areas,
            outDir: options.out,
            ...(options.quiet || options.json ? { quiet: true } : {}),
            // stdout carries only the JSON object: choices made for the caller go to stderr
            ...(options.json ? { onNotice: (line: string) => process.stderr.write(`${line}\n`) } : {}),
          },
          logger,
        );
        if (options.json) printJson(runJson(outcome));
        else {
          printRunSummary(outcome);
          process.stdout.write(`\nreport: ${outcome.reportPath}\n`);
        }
        if (outcome.interruptedBy) process.exitCode = exitCodeForSignal(outcome.interruptedBy);
        else if (outcome.run.status === 'failed') process.exitCode = 1;
      },
    );
}
