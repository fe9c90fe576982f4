import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { EXIT_CODES_HELP } from '../exit-codes.js';

export function register(program: Command): void {
  program
    .command('demo')
    .description('Create the e-commerce demo warehouse (if absent) and run a full discovery on embedded defaults: no server, no API key')
    .option('--out <dir>', 'where to write <runId>/run.json, result.json and report.html', 'assay-output')
    .option('--max-steps <n>', 'exploration steps, 1-500', '24')
    .option('--quiet', 'no progress output')
    .addHelpText('after', `\n${EXIT_CODES_HELP}`)
    .action(async (options: { out: string; maxSteps: string; quiet?: boolean }, command: Command) => {
      const [
        { parseStepCount },
        { cliConfig, cliLogger },
        { runDiscovery },
        { printRunSummary },
        { checkOutputDir },
        { exitCodeForSignal },
      ] = await Promise.all([
        import('../../common/run-limits.js'),
        import('../context.js'),
        import('../discovery-session.js'),
        import('../run-summary.js'),
        import('../output-dir.js'),
        import('../interrupts.js'),
      ]);
      const maxSteps = parseStepCount('max_steps', '--max-steps', options.maxSteps);
      await checkOutputDir(options.out);
      const base = cliConfig(command);
      const warehousePath = resolve(base.dataDir, 'demo-ecommerce.duckdb');
      if (!existsSync(warehousePath)) {
        const { generateDemoWarehouse } = await import('../../demo/index.js');
        await mkdir(dirname(warehousePath), { recursive: true });
        // the demo's truths are the eval's business: the demo keeps only its warehouse
        const demo = await generateDemoWarehouse({ kind: 'ecommerce', out: warehousePath, truths: false });
        process.stderr.write(
          `created the demo warehouse ${demo.path} (${demo.tables.length} tables) in ${(demo.elapsedMs / 1000).toFixed(1)} s\n`,
        );
      }
      const config = cliConfig(command, { warehouse: `duckdb:${warehousePath}` });
      const outcome = await runDiscovery(
        config,
        {
          projectId: 'demo-ecommerce',
          projectName: 'Demo store',
          pack: 'ecommerce',
          maxSteps,
          minSteps: 0,
          outDir: options.out,
          ...(options.quiet ? { quiet: true } : {}),
        },
        cliLogger(config, command),
      );
      printRunSummary(outcome);
      process.stdout.write(`\nreport: ${outcome.reportPath}\n`);
      if (outcome.interruptedBy) process.exitCode = exitCodeForSignal(outcome.interruptedBy);
      else if (outcome.run.status === 'failed') process.exitCode = 1;
    });
}
