/** `assay packs list`: the domain packs, their categories and analysis areas (in the order runs analyse them). */
import type { Command } from 'commander';
import { printJson } from '../output.js';

export type { PackSummary } from '../pack-summary.js';

export function register(program: Command): void {
  const packs = program.command('packs').description('inspect the domain packs (analysis areas and prompts per domain)');
  packs
    .command('list')
    .description('list domain packs with their categories and analysis areas, in the order a run analyses them')
    .option('--all', 'include hidden packs (system-test); also enabled by ASSAY_ENABLE_SYSTEM_TEST=true')
    .option('--json', 'print JSON instead of a table')
    .option('--dir <path>', 'read packs from this directory instead of the shipped domain-packs/')
    .addHelpText(
      'after',
      '\nEvery pack is validated while loading; a broken pack fails with one line naming the pack, file and field.\n\nExamples:\n  assay packs list\n  assay packs list --all --json',
    )
    .action(async (options: { all?: boolean; json?: boolean; dir?: string }, command: Command) => {
      const [{ cliConfig }, { loadPacks }, { directoryPackLibrary }, { packTable, summarisePack }] = await Promise.all([
        import('../context.js'),
        import('../../discovery/packs/pack-loader.js'),
        import('../../pack-files/directory.js'),
        import('../pack-summary.js'),
      ]);
      const config = cliConfig(command);
      const includeHidden = options.all === true || config.enableSystemTestPack;
      const summaries = loadPacks(directoryPackLibrary(options.dir), { includeHidden }).map(summarisePack);
      if (options.json) {
        printJson(summaries);
        return;
      }
      process.stdout.write(`${packTable(summaries)}\n`);
    });
}
