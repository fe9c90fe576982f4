/** `assay packs list`: the domain packs, their categories and analysis areas (in the order runs analyse them). */
import type { Command } from 'commander';
import { loadPacks, resolveAreas } from '../../discovery/pack-loader.js';
import type { DomainPack } from '../../discovery/pack-schema.js';
import { cliConfig, printJson, renderTable } from '../context.js';

export interface PackSummary {
  slug: string;
  name: string;
  description: string;
  version: string;
  hidden: boolean;
  /** Base areas, in priority order. */
  areas: Array<{ id: string; name: string; priority: number; keywords: string[] }>;
  /** Per category: the full area list a run of that category analyses, in priority order. */
  categories: Array<{ id: string; name: string; description: string; areas: string[] }>;
}

/** What `packs list` shows, without prompt texts: stable, JSON-friendly. */
export function summarisePack(pack: DomainPack): PackSummary {
  return {
    slug: pack.slug,
    name: pack.name,
    description: pack.description,
    version: pack.version,
    hidden: pack.hidden,
    areas: resolveAreas(pack).map((area) => ({ id: area.id, name: area.name, priority: area.priority, keywords: area.keywords })),
    categories: pack.categories.map((category) => ({
      id: category.id,
      name: category.name,
      description: category.description,
      areas: resolveAreas(pack, category.id).map((area) => area.id),
    })),
  };
}

function packTable(summaries: PackSummary[]): string {
  const rows = summaries.flatMap((summary) => {
    const label = `${summary.slug}${summary.hidden ? ' (hidden)' : ''}`;
    const base = [label, summary.version, '(base)', summary.areas.map((area) => `${area.id} [${area.priority}]`).join(', ')];
    const categories = summary.categories.map((category) => ['', '', category.id, category.areas.join(', ')]);
    return [base, ...categories];
  });
  return renderTable(['pack', 'version', 'category', 'areas (analysis order)'], rows);
}

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
    .action((options: { all?: boolean; json?: boolean; dir?: string }, command: Command) => {
      const config = cliConfig(command);
      const includeHidden = options.all === true || config.enableSystemTestPack;
      const summaries = loadPacks({ dir: options.dir, includeHidden }).map(summarisePack);
      if (options.json) {
        printJson(summaries);
        return;
      }
      process.stdout.write(`${packTable(summaries)}\n`);
    });
}
