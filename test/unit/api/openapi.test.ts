import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiHarness, type ApiHarness } from './api-harness.js';

/** Every `$ref` anywhere in a JSON value. */
function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, inner]) => (key === '$ref' && typeof inner === 'string' ? [inner] : refsIn(inner)));
  }
  return [];
}

describe('GET /openapi.json', () => {
  let api: ApiHarness;
  let document: any;
  beforeAll(async () => {
    api = await createApiHarness();
    const response = await api.app.request('/openapi.json', { headers: { Authorization: `Bearer ${api.adminKey}` } });
    expect(response.status).toBe(200);
    document = JSON.parse(await response.text());
  });
  afterAll(async () => api.close());

  it('is an OpenAPI 3.1 document with info and paths', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info).toMatchObject({ title: 'Assay API', version: expect.any(String) });
    expect(Object.keys(document.paths).length).toBeGreaterThan(10);
  });

  it('validates against the OpenAPI 3.1 schema', async () => {
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('says which scope each operation needs, and which need none', () => {
    const scopes = Object.fromEntries(
      Object.entries<Record<string, any>>(document.paths).flatMap(([path, operations]) =>
        Object.entries(operations).map(([method, operation]) => [`${method} ${path}`, operation['x-required-scope'] ?? 'none']),
      ),
    );
    expect(scopes).toMatchObject({
      'get /health': 'none',
      'get /api/v1/projects': 'read',
      'post /api/v1/projects/{id}/discover': 'run',
      'delete /api/v1/api-keys/{keyId}': 'admin',
      'get /api/v1/runs/{runId}/report': 'read (or a signed report link)',
      'get /metrics': 'read (none when api.publicMetrics is on)',
    });
  });

  it('describes query parameters from the schemas the routes parse them with', () => {
    const parameters = document.paths['/api/v1/projects/{id}/runs'].get.parameters;
    expect(parameters).toContainEqual({
      name: 'limit',
      in: 'query',
      required: false,
      description: expect.stringMatching(/newest first/),
      schema: expect.objectContaining({ type: 'integer', minimum: 1, maximum: 100, default: 20 }),
    });
    expect(document.paths['/api/v1/projects/{id}/runs'].get.responses['400']).toBeDefined();
  });

  it('lists every route the app registers, with its method', () => {
    const registered = api.app.routes
      .filter((route) => route.method !== 'ALL' && !route.path.includes('*'))
      .map((route) => `${route.method.toLowerCase()} ${route.path.replace(/:([A-Za-z]+)/g, '{$1}')}`);
    expect(registered.length).toBeGreaterThan(15);
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations as object).map((method) => `${method} ${path}`),
    );
    expect([...new Set(registered)].sort()).toEqual([...documented].sort());
  });

  it('resolves every $ref to a component, and components are plain JSON Schema objects', () => {
    for (const ref of refsIn(document)) {
      const name = ref.replace('#/components/schemas/', '');
      expect(document.components.schemas[name], ref).toBeDefined();
    }
    for (const [name, schema] of Object.entries<Record<string, unknown>>(document.components.schemas)) {
      // a body that takes several forms (one claim, a list of claims) is an anyOf of objects and arrays
      const forms = (schema.anyOf as Array<Record<string, unknown>> | undefined) ?? [schema];
      for (const form of forms) expect(form.type === 'object' || (schema.anyOf !== undefined && form.type === 'array'), name).toBe(true);
      expect(schema.$schema, name).toBeUndefined();
    }
  });

  it('describes request bodies from the same schemas the routes validate with', () => {
    const create = document.components.schemas.CreateProjectBody;
    expect(create.required).toEqual(expect.arrayContaining(['name', 'domain']));
    expect(create.additionalProperties).toBe(false);
    expect(create.properties.warehouse.properties.url.type).toBe('string');
    const discover = document.components.schemas.DiscoverBody;
    expect(discover.properties.max_steps).toMatchObject({ type: 'integer', minimum: 1, maximum: 500 });
    expect(document.paths['/api/v1/projects/{id}/discover'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/DiscoverBody',
    });
  });

  it("describes each insight's claim and validation (status, recount with n on each side, reasoning) in the result and the run", () => {
    const insightOf = {
      result: document.components.schemas.DiscoveryResult.properties.insights.items,
      run: document.components.schemas.Run.properties.areas.items.properties.insights.items,
    };
    for (const [where, insight] of Object.entries<any>(insightOf)) {
      expect(insight.properties.claim?.description, `${where}: claim`).toMatch(/unverified/);
      expect(insight.properties.claim?.properties?.kind, `${where}: claim.kind`).toBeDefined();
      const validation = insight.properties.validation;
      expect(validation?.properties?.status?.enum, `${where}: validation.status`).toEqual(
        expect.arrayContaining(['confirmed', 'adjusted', 'rejected', 'unverified']),
      );
      expect(validation.properties.status.description, `${where}: validation.status`).toMatch(/re-rendered/);
      expect(validation.properties.reasoning?.type, `${where}: validation.reasoning`).toBe('string');
      expect(validation.required, `${where}: validation.required`).toEqual(expect.arrayContaining(['status', 'reasoning']));
      const recount = validation.properties.recount;
      expect(recount?.required, `${where}: validation.recount`).toEqual(['value', 'comparison_value', 'p_value', 'n', 'comparison_n']);
      for (const field of recount.required as string[])
        expect(recount.properties[field].description, `${where}: recount.${field}`).toBeTruthy();
      expect(validation.properties.text_rerendered?.type, `${where}: validation.text_rerendered`).toBe('boolean');
    }
  });

  it('declares every path parameter of a templated path', () => {
    for (const [path, operations] of Object.entries<Record<string, { parameters?: Array<{ name: string; in: string }> }>>(document.paths)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      for (const operation of Object.values(operations)) {
        expect(
          (operation.parameters ?? []).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name),
          path,
        ).toEqual(names);
      }
    }
  });
});
