/** `GET /api/v1/packs`: the domain packs a project can be created with, as `assay packs list` shows them. */
import { Hono } from 'hono';
import { loadPacks } from '../../discovery/packs/pack-loader.js';
import { summarisePack } from '../../runs/pack-summary.js';
import type { ApiDeps } from '../context.js';

export function packCatalogRoutes(deps: ApiDeps): Hono {
  const app = new Hono();
  app.get('/packs', (c) =>
    c.json({ packs: loadPacks(deps.runtime.packs, { includeHidden: deps.config.enableSystemTestPack }).map(summarisePack) }),
  );
  return app;
}
