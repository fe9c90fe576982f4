import { resolve } from 'node:path';
import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('report <runId>')
    .description('Write the self-contained HTML report (plus run.json and result.json) of a stored run')
    .option('--out <dir>', 'output directory (files go to <dir>/<runId>/)', 'assay-output')
    .action(async (runId: string, options: { out: string }, command: Command) => {
      const [{ composeRuntime }, { cliConfig, cliLogger }, { writeRunArtefacts }] = await Promise.all([
        import('../../composition.js'),
        import('../context.js'),
        import('../discovery-session.js'),
      ]);
      const config = cliConfig(command);
      const runtime = await composeRuntime(config, { logger: cliLogger(config, command) });
      try {
        const reportPath = await writeRunArtefacts(runtime, runId, resolve(options.out, runId));
        process.stdout.write(`${reportPath}\n`);
      } finally {
        await runtime.close();
      }
    });
}
