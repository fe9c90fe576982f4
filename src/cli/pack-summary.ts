/** What `assay packs list` prints of each domain pack: its areas and categories in analysis order, without prompt texts. */
import type { DomainPack } from '../discovery/packs/pack-schema.js';
import { resolveAreas } from '../discovery/packs/pack-loader.js';
import { renderTable } from './output.js';

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

export function packTable(summaries: PackSummary[]): string {
  const rows = summaries.flatMap((summary) => {
    const label = `${summary.slug}${summary.hidden ? ' (hidden)' : ''}`;
    const base = [label, summary.version, '(base)', summary.areas.map((area) => `${area.id} [${area.priority}]`).join(', ')];
    const categories = summary.categories.map((category) => ['', '', category.id, category.areas.join(', ')]);
    return [base, ...categories];
  });
  return renderTable(['pack', 'version', 'category', 'areas (analysis order)'], rows);
}
