/** Which areas of a pack a run analyses: the same rule for an API body's `areas` and `assay run --areas`. */
import type { AnalysisArea } from '../discovery/packs/pack-schema.js';
import { ValidationError } from '../errors/index.js';

/** The areas a request selects, in the pack's order; unknown ids are a 400 naming each offending index. */
export function selectAreas(
  packAreas: readonly AnalysisArea[],
  requested: readonly string[] | undefined,
  packSlug: string,
): AnalysisArea[] {
  if (!requested) return [...packAreas];
  const known = new Set(packAreas.map((area) => area.id));
  const issues = requested.flatMap((id, index) => (known.has(id) ? [] : [{ path: `areas.${index}`, message: `unknown area "${id}"` }]));
  if (issues.length > 0) {
    throw new ValidationError(
      `pack "${packSlug}" has no area(s) ${issues.map((issue) => issue.message.slice('unknown area '.length)).join(', ')} (areas: ${[...known].join(', ')})`,
      issues,
    );
  }
  const wanted = new Set(requested);
  return packAreas.filter((area) => wanted.has(area.id));
}
