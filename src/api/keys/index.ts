/** API key management over HTTP: admin keys that are not bound to a project list, create and revoke keys. */
import { z } from 'zod';
import { requireUnbound } from '../auth/access.js';
import { createApiKey, publicKeyView, revokeApiKey } from '../auth/keys.js';
import type { ApiDeps } from '../context.js';
import { type ApiRoute, defineRoute } from '../routing.js';
import { apiKeyViewSchema, createApiKeyBodySchema, createdApiKeySchema } from '../schemas.js';
import { invalid, missing } from '../responses.js';

export function apiKeyRoutes(deps: ApiDeps): ApiRoute[] {
  const { store } = deps.runtime;
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/api-keys',
      access: 'admin',
      summary: 'List API keys (never their secrets or hashes); needs an admin key not bound to a project',
      tag: 'api-keys',
      responses: { 200: { description: 'keys', json: z.object({ api_keys: z.array(apiKeyViewSchema) }) } },
      handler: async (c) => {
        requireUnbound(c, 'managing API keys');
        return c.json({ api_keys: (await store.listApiKeys()).map(publicKeyView) });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/api-keys',
      access: 'admin',
      summary: 'Create an API key; the response is the only time the key is shown',
      tag: 'api-keys',
      body: createApiKeyBodySchema,
      responses: { 201: { description: 'created', json: createdApiKeySchema }, 400: invalid },
      handler: async (c, { body }) => {
        requireUnbound(c, 'managing API keys');
        const created = await createApiKey(store, { name: body.name, scope: body.scope, projectId: body.project_id }, deps.runtime.now());
        deps.logger.info({ keyId: created.record.id, scope: created.record.scope }, 'API key created');
        return c.json({ ...publicKeyView(created.record), key: created.key }, 201);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/v1/api-keys/{keyId}',
      access: 'admin',
      summary: 'Revoke an API key (its record stays, with revoked_at)',
      tag: 'api-keys',
      responses: { 200: { description: 'revoked', json: apiKeyViewSchema }, 404: missing('the key') },
      handler: async (c) => {
        requireUnbound(c, 'managing API keys');
        const revoked = await revokeApiKey(store, c.req.param('keyId') as string, deps.runtime.now());
        deps.logger.info({ keyId: revoked.id }, 'API key revoked');
        return c.json(publicKeyView(revoked));
      },
    }),
  ];
}
