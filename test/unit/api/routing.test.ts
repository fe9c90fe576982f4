import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createErrorHandler } from '../../../src/api/errors.js';
import { readJsonValue } from '../../../src/api/request.js';
import { accessTable, defineRoute, registerRoutes, routerPath } from '../../../src/api/routing.js';
import { silentLogger } from '../../../src/logging/index.js';

const itemBody = z.strictObject({ name: z.string().min(1), tags: z.array(z.string()).optional() });
const pageQuery = z.object({ limit: z.coerce.number().int().min(1).max(10).default(5) });

const routes = [
  defineRoute({
    method: 'post',
    path: '/things/{thingId}/items',
    access: 'run',
    summary: 'add an item',
    tag: 'things',
    query: pageQuery,
    body: itemBody,
    responses: { 200: { description: 'echo' } },
    // the handler sees the parsed values: the default filled in, the types those of the schemas
    handler: (c, { query, body }) => c.json({ thing: c.req.param('thingId'), limit: query.limit, name: body.name }),
  }),
  defineRoute({
    method: 'post',
    path: '/raw',
    access: 'read',
    summary: 'a body read by the handler itself',
    tag: 'things',
    body: itemBody,
    readElsewhere: ['body'],
    responses: { 200: { description: 'echo' } },
    handler: async (c, { body }) => c.json({ parsed: body ?? null, raw: await readJsonValue(c) }),
  }),
  defineRoute({
    method: 'get',
    path: '/things/{thingId}',
    access: 'public',
    summary: 'one thing',
    tag: 'things',
    responses: { 200: { description: 'the thing' } },
    handler: (c) => c.json({ thing: c.req.param('thingId') }),
  }),
];

function appOf(): Hono {
  const app = new Hono();
  app.onError(createErrorHandler(silentLogger));
  registerRoutes(app, routes);
  return app;
}

async function post(app: Hono, path: string, body: unknown) {
  const response = await app.request(path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  return { status: response.status, json: (await response.json()) as any };
}

describe('registerRoutes', () => {
  it('registers each declared route at its router path, and nothing else', () => {
    expect(appOf().routes.map((route) => `${route.method} ${route.path}`)).toEqual([
      'POST /things/:thingId/items',
      'POST /raw',
      'GET /things/:thingId',
    ]);
    expect(routerPath('/a/{b}/c/{d}')).toBe('/a/:b/c/:d');
  });

  it('hands the handler the query and body parsed by their schemas', async () => {
    const answer = await post(appOf(), '/things/t1/items?limit=3', { name: 'pen' });
    expect(answer).toEqual({ status: 200, json: { thing: 't1', limit: 3, name: 'pen' } });
    expect((await post(appOf(), '/things/t1/items', { name: 'pen' })).json.limit).toBe(5);
  });

  it('answers 400 naming each bad field of the body, an unknown one at its own path', async () => {
    const answer = await post(appOf(), '/things/t1/items', { name: '', tags: [1], colour: 'red' });
    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe('validation');
    expect(answer.json.error.issues.map((issue: { path: string }) => issue.path).sort()).toEqual(['colour', 'name', 'tags.0']);
  });

  it('answers 400 naming a bad query parameter', async () => {
    const answer = await post(appOf(), '/things/t1/items?limit=11', { name: 'pen' });
    expect(answer.status).toBe(400);
    expect(answer.json.error.issues).toEqual([{ path: 'limit', message: expect.any(String) }]);
    expect(answer.json.error.message).toMatch(/query string/);
  });

  it('answers 400 to a body that is not JSON', async () => {
    const response = await appOf().request('/things/t1/items', { method: 'POST', body: '{"name":' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error.message).toMatch(/not valid JSON/);
  });

  it('leaves a part read elsewhere to the handler, unparsed', async () => {
    const answer = await post(appOf(), '/raw', { anything: [1, 2] });
    expect(answer).toEqual({ status: 200, json: { parsed: null, raw: { anything: [1, 2] } } });
  });
});

describe('accessTable', () => {
  const table = accessTable(routes);

  it('gives each declared route its declared access, HEAD that of GET', () => {
    expect(table.accessFor('POST', '/things/:thingId/items')).toBe('run');
    expect(table.accessFor('POST', '/raw')).toBe('read');
    expect(table.accessFor('GET', '/things/:thingId')).toBe('public');
    expect(table.accessFor('HEAD', '/things/:thingId')).toBe('public');
  });

  it('closes a route nobody declared to all but admin, and asks a key of an unmatched request', () => {
    expect(table.accessFor('DELETE', '/things/:thingId')).toBe('admin');
    expect(table.accessFor('GET', '/elsewhere')).toBe('admin');
    expect(table.accessFor('GET', undefined)).toBe('read');
  });
});
