import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { mkdir } from 'node:fs/promises';
import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('demo')
    .description('Create the e-commerce demo warehouse (if absent) and run a full discovery on embedded defaults: no server, no API key')
    .option('--out <dir>', 'where to write <runId>/run.json, result.json and report.html', 'assay-output')
    .option('--max-steps <n>', 'exploration steps', (value) => Number.parseInt(value, 10), 24)
    .option('--quiet', 'no progress output')
    .action(async (options: { out: string; maxSteps: number; quiet?: boolean }, command: Command) => {
      const [{ generateDemoWarehouse }, { cliConfig, cliLogger }, { runDiscovery }, { printRunSummary }] = await Promise.all([
        import('../../demo/index.js'),
        import('../context.js'),
        import('../discovery-session.js'),
        import('../run-summary.js'),
      ]);
      const base = cliConfig(command);
      const warehousePath = resolve(base.dataDir, 'demo-ecommerce.duckdb');
      if (!existsSync(warehousePath)) {
        await mkdir(dirname(warehousePath), { recursive: true });
        const demo = await generateDemoWarehouse({ kind: 'ecommerce', out: warehousePath });
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
          maxSteps: options.maxSteps,
          minSteps: 0,
          outDir: options.out,
          ...(options.quiet ? { quiet: true } : {}),
        },
        cliLogger(config),
      );
      printRunSummary(outcome);
      process.stdout.write(`\nreport: ${join(outcome.outputDir, 'report.html')}\n`);
    });
}
