/**
 * What a person choosing a pack needs to see of it — its areas and categories in analysis order,
 * without prompt texts: `assay packs list` and `GET /api/v1/packs` show the same summary.
 */
import { z } from 'zod';
import type { DomainPack } from '../discovery/packs/pack-schema.js';
import { resolveAreas } from '../discovery/packs/pack-loader.js';

export const packSummarySchema = z.object({
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  version: z.string(),
  hidden: z.boolean(),
  /** Base areas, in priority order. */
  areas: z.array(z.object({ id: z.string(), name: z.string(), priority: z.number(), keywords: z.array(z.string()) })),
  /** Per category: the full area list a run of that category analyses, in priority order. */
  categories: z.array(z.object({ id: z.string(), name: z.string(), description: z.string(), areas: z.array(z.string()) })),
});
export type PackSummary = z.infer<typeof packSummarySchema>;

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
