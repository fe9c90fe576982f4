/** `GET /api/v1/packs`: the domain packs a project can be created with, as `assay packs list` shows them. */
import { z } from 'zod';
import { loadPacks } from '../../discovery/packs/pack-loader.js';
import { packSummarySchema, summarisePack } from '../../runs/pack-summary.js';
import type { ApiDeps } from '../context.js';
import { type ApiRoute, defineRoute } from '../routing.js';

export function packCatalogRoutes(deps: ApiDeps): ApiRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/packs',
      access: 'read',
      summary: 'The domain packs a project can use: areas and categories in analysis order (what `assay packs list` shows)',
      tag: 'packs',
      responses: { 200: { description: 'packs', json: z.object({ packs: z.array(packSummarySchema) }) } },
      handler: (c) =>
        c.json({ packs: loadPacks(deps.runtime.packs, { includeHidden: deps.config.enableSystemTestPack }).map(summarisePack) }),
    }),
  ];
}
