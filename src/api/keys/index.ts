/** API key management over HTTP: admin keys that are not bound to a project list, create and revoke keys. */
import { Hono } from 'hono';
import { requireUnbound } from '../auth/access.js';
import { createApiKey, publicKeyView, revokeApiKey } from '../auth/keys.js';
import type { ApiDeps } from '../context.js';
import { readJsonBody } from '../request.js';
import { createApiKeyBodySchema } from '../schemas.js';

export function apiKeyRoutes(deps: ApiDeps): Hono {
  const { store } = deps.runtime;
  const app = new Hono();

  app.get('/api-keys', async (c) => {
    requireUnbound(c, 'managing API keys');
    return c.json({ api_keys: (await store.listApiKeys()).map(publicKeyView) });
  });

  app.post('/api-keys', async (c) => {
    requireUnbound(c, 'managing API keys');
    const body = await readJsonBody(c, createApiKeyBodySchema);
    const created = await createApiKey(store, { name: body.name, scope: body.scope, projectId: body.project_id }, deps.runtime.now());
    deps.logger.info({ keyId: created.record.id, scope: created.record.scope }, 'API key created');
    return c.json({ ...publicKeyView(created.record), key: created.key }, 201);
  });

  app.delete('/api-keys/:keyId', async (c) => {
    requireUnbound(c, 'managing API keys');
    const revoked = await revokeApiKey(store, c.req.param('keyId'), deps.runtime.now());
    deps.logger.info({ keyId: revoked.id }, 'API key revoked');
    return c.json(publicKeyView(revoked));
  });

  return app;
}
