/** The table `assay packs list` prints. */
import type { PackSummary } from '../runs/pack-summary.js';
import { renderTable } from './output.js';

export { summarisePack, type PackSummary } from '../runs/pack-summary.js';

export function packTable(summaries: PackSummary[]): string {
  const rows = summaries.flatMap((summary) => {
    const label = `${summary.slug}${summary.hidden ? ' (hidden)' : ''}`;
    const base = [label, summary.version, '(base)', summary.areas.map((area) => `${area.id} [${area.priority}]`).join(', ')];
    const categories = summary.categories.map((category) => ['', '', category.id, category.areas.join(', ')]);
    return [base, ...categories];
  });
  return renderTable(['pack', 'version', 'category', 'areas (analysis order)'], rows);
}
