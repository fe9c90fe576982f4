/** `assay runs list|show|cancel|resume`: the stored runs, stopping one, and continuing one from its stored work. */
import type { Command } from 'commander';
import { ValidationError } from '../../errors/index.js';
import { EXIT_CODES_HELP } from '../exit-codes.js';

function limitOption(value: string): number {
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1_000)
    throw new ValidationError(`--limit must be a whole number from 1 to 1000, got "${value}"`, [{ path: '--limit', message: '1-1000' }]);
  return limit;
}

export function register(program: Command): void {
  const runs = program
    .command('runs')
    .description('list, inspect, cancel and resume stored runs')
    .addHelpText(
      'after',
      '\nA run whose process died (killed, out of memory, the machine went down) is found by its lease and marked\n"interrupted" the next time any of these commands (or `assay run`) looks: it never stays "running".',
    );

  runs
    .command('list')
    .description('runs, newest first, with status, steps and insights')
    .option('--project <id>', 'only this project')
    .option('--limit <n>', 'at most this many runs (1-1000)', limitOption, 20)
    .option('--json', 'print JSON instead of a table')
    .action(async (options: { project?: string; limit: number; json?: boolean }, command: Command) => {
      const [{ cliConfig, cliLogger }, { listRunsCommand }] = await Promise.all([import('../context.js'), import('../run-records.js')]);
      const config = cliConfig(command);
      await listRunsCommand(config, cliLogger(config, command), options);
    });

  runs
    .command('show <runId>')
    .description('one run (`latest`: the newest): status, phase, steps, areas, error, and what you can do next')
    .option('--json', 'print the run document')
    .action(async (runId: string, options: { json?: boolean }, command: Command) => {
      const [{ cliConfig, cliLogger }, { showRunCommand }] = await Promise.all([import('../context.js'), import('../run-records.js')]);
      const config = cliConfig(command);
      await showRunCommand(config, cliLogger(config, command), runId, options);
    });

  runs
    .command('cancel <runId>')
    .description('stop a pending or running run; its stored steps are kept and it can be resumed')
    .addHelpText(
      'after',
      '\nAn `assay run` process on this machine is sent SIGTERM and stops cleanly; a run driven elsewhere (another host,\n`assay api` on a shared store, the fleet) is marked cancelled and its runner stops before its next step.',
    )
    .action(async (runId: string, _options: unknown, command: Command) => {
      const [{ cliConfig, cliLogger }, { cancelRunCommand }] = await Promise.all([import('../context.js'), import('../run-records.js')]);
      const config = cliConfig(command);
      await cancelRunCommand(config, cliLogger(config, command), runId);
    });

  runs
    .command('resume <runId>')
    .description(
      'continue a cancelled, failed or partial run (`latest`: the newest) in this process from its stored steps, areas and validations',
    )
    .option('--warehouse <url>', "the run's warehouse URL again, when its password is not stored (it must be the same warehouse)")
    .option('--out <dir>', 'output directory (files go to <dir>/<runId>/)', 'assay-output')
    .option('--quiet', 'no progress output')
    .addHelpText(
      'after',
      `\nStored exploration steps are replayed without asking the model, and exploration goes on from the first missing step\n(unless it had ended); completed and skipped areas are kept, failed ones analysed again; recommendations are\nwritten again when anything under them changed. The run keeps its id, model and pack.\n\n${EXIT_CODES_HELP}`,
    )
    .action(async (runId: string, options: { warehouse?: string; out: string; quiet?: boolean }, command: Command) => {
      const [{ cliConfig, cliLogger }, { resumeDiscovery }, { printRunSummary }, { exitCodeForSignal }] = await Promise.all([
        import('../context.js'),
        import('../discovery-session.js'),
        import('../run-summary.js'),
        import('../interrupts.js'),
      ]);
      const config = cliConfig(command);
      const outcome = await resumeDiscovery(
        config,
        { runId, outDir: options.out, warehouse: options.warehouse, ...(options.quiet ? { quiet: true } : {}) },
        cliLogger(config, command),
      );
      printRunSummary(outcome);
      process.stdout.write(`\nreport: ${outcome.reportPath}\n`);
      if (outcome.interruptedBy) process.exitCode = exitCodeForSignal(outcome.interruptedBy);
      else if (outcome.run.status === 'failed') process.exitCode = 1;
    });
}
