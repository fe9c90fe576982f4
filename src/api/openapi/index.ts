/**
 * The OpenAPI 3.1 document of the API, derived from the route declarations (src/api/routing.ts):
 * every operation, its parameters, body, responses and required scope come from the same
 * declaration the router registers and the auth middleware reads. Bodies and documents are
 * generated from the zod schemas the routes parse with and the store validates (zod 4
 * `z.toJSONSchema` over a registry, JSON Schema 2020-12 as OpenAPI 3.1 uses): the schemas named
 * below become components, referenced wherever they appear; any other schema is written in place.
 */
import { z } from 'zod';
import { discoveryResultSchema, explorationStepSchema, feedbackSchema, projectSchema, runSchema } from '../../domain/index.js';
import { packSummarySchema } from '../../runs/pack-summary.js';
import { reportLinkSchema } from '../runs/report-link-view.js';
import { runProgressSchema, runSummarySchema } from '../runs/run-summary.js';
import type { ApiRoute, RouteAccess } from '../routing.js';
import {
  apiKeyViewSchema,
  createApiKeyBodySchema,
  createdApiKeySchema,
  createProjectBodySchema,
  discoverBodySchema,
  errorBodySchema,
  estimateBodySchema,
  estimateResponseSchema,
  feedbackBodySchema,
  packAcceptBodySchema,
  packGenerateBodySchema,
  updateProjectBodySchema,
  verdictsSchema,
  verifyBodySchema,
} from '../schemas.js';

type JsonSchema = Record<string, unknown>;
type Io = 'input' | 'output';

/** Schemas with a name: each is one entry of `components.schemas`, and a `$ref` wherever a route or another component uses it. */
const COMPONENTS: Record<string, { schema: z.ZodType; io: Io }> = {
  Project: { schema: projectSchema, io: 'output' },
  Run: { schema: runSchema, io: 'output' },
  ExplorationStep: { schema: explorationStepSchema, io: 'output' },
  DiscoveryResult: { schema: discoveryResultSchema, io: 'output' },
  Feedback: { schema: feedbackSchema, io: 'output' },
  RunSummary: { schema: runSummarySchema, io: 'output' },
  RunProgress: { schema: runProgressSchema, io: 'output' },
  Estimate: { schema: estimateResponseSchema, io: 'output' },
  Error: { schema: errorBodySchema, io: 'output' },
  PackSummary: { schema: packSummarySchema, io: 'output' },
  ReportLink: { schema: reportLinkSchema, io: 'output' },
  Verdicts: { schema: verdictsSchema, io: 'output' },
  CreateProjectBody: { schema: createProjectBodySchema, io: 'input' },
  UpdateProjectBody: { schema: updateProjectBodySchema, io: 'input' },
  DiscoverBody: { schema: discoverBodySchema, io: 'input' },
  EstimateBody: { schema: estimateBodySchema, io: 'input' },
  FeedbackBody: { schema: feedbackBodySchema, io: 'input' },
  PackGenerateBody: { schema: packGenerateBodySchema, io: 'input' },
  PackAcceptBody: { schema: packAcceptBodySchema, io: 'input' },
  VerifyBody: { schema: verifyBodySchema, io: 'input' },
  ApiKey: { schema: apiKeyViewSchema, io: 'output' },
  CreatedApiKey: { schema: createdApiKeySchema, io: 'output' },
  CreateApiKeyBody: { schema: createApiKeyBodySchema, io: 'input' },
};

const COMPONENT_PATH = '#/components/schemas/';
const ref = (name: string): JsonSchema => ({ $ref: `${COMPONENT_PATH}${name}` });
/** Ids of schemas written in place: registered only so that the components they contain become `$ref`s. */
const INLINE_ID = /^inline-\d+$/;

/**
 * The JSON Schemas of one document: the components, and every schema the routes use, converted
 * together per direction (a body as the client sends it, an answer as the server writes it), so a
 * component inside a route's schema is a `$ref` to it.
 */
class SchemaCatalog {
  private readonly registries = { input: z.registry<{ id: string }>(), output: z.registry<{ id: string }>() };
  private readonly names = new Map<z.ZodType, string>();
  private converted: Record<Io, Record<string, JsonSchema>> | undefined;
  private counter = 0;

  constructor(components: typeof COMPONENTS) {
    for (const [name, { schema, io }] of Object.entries(components)) {
      this.names.set(schema, name);
      this.registries[io].add(schema, { id: name });
    }
  }

  /** Declares a schema a route uses; call for each before the first `jsonOf`. */
  note(schema: z.ZodType, io: Io): void {
    if (this.converted) throw new Error('SchemaCatalog: every schema must be noted before the first conversion');
    if (this.names.has(schema) || this.registries[io].has(schema)) return;
    this.registries[io].add(schema, { id: `inline-${this.counter++}` });
  }

  private convert(): Record<Io, Record<string, JsonSchema>> {
    this.converted ??= {
      input: this.convertOne('input'),
      output: this.convertOne('output'),
    };
    return this.converted;
  }

  private convertOne(io: Io): Record<string, JsonSchema> {
    const { schemas } = z.toJSONSchema(this.registries[io], { io, unrepresentable: 'any', uri: (id) => `${COMPONENT_PATH}${id}` });
    const out: Record<string, JsonSchema> = {};
    for (const [id, schema] of Object.entries(schemas as Record<string, JsonSchema>)) {
      // a recursive schema without a name lands in a shared $defs entry that OpenAPI cannot address
      if (id === '__shared')
        throw new Error(
          'a schema of the API is recursive: name it in COMPONENTS (src/api/openapi/index.ts) so that it can refer to itself',
        );
      const { $schema: _dialect, $id: _id, ...rest } = schema;
      out[id] = rest;
    }
    return out;
  }

  /** A `$ref` for a component, the schema itself otherwise. */
  jsonOf(schema: z.ZodType, io: Io): JsonSchema {
    const name = this.names.get(schema);
    if (name) return ref(name);
    const id = this.registries[io].get(schema)?.id;
    const json = id === undefined ? undefined : this.convert()[io][id];
    if (!json) throw new Error('SchemaCatalog: a schema was converted without being noted first');
    return json;
  }

  components(): Record<string, JsonSchema> {
    const converted = this.convert();
    return Object.fromEntries(Object.entries(COMPONENTS).map(([name, { io }]) => [name, converted[io][name] as JsonSchema]));
  }

  /** Fails when a `$ref` points at a schema written in place (it has no address in the document). */
  assertAddressable(document: unknown): void {
    const text = JSON.stringify(document);
    for (const match of text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) {
      if (INLINE_ID.test(match[1] as string)) throw new Error(`a $ref points at ${match[1]}, a schema without a name`);
    }
  }
}

/** `security` of an operation, and the scope it needs as `x-required-scope`. */
function securityOf(access: RouteAccess): JsonSchema {
  if (access === 'public') return { security: [] };
  if (access === 'read_or_link') return { security: [{}, { bearer: [] }], 'x-required-scope': 'read (or a signed report link)' };
  if (access === 'public_metrics')
    return { security: [{}, { bearer: [] }], 'x-required-scope': 'read (none when api.publicMetrics is on)' };
  return { security: [{ bearer: [] }], 'x-required-scope': access };
}

function authResponses(access: RouteAccess): Record<string, JsonSchema> {
  if (access === 'public') return {};
  return {
    401: { description: 'no key, or an unknown or revoked one', content: { 'application/json': { schema: ref('Error') } } },
    403: {
      description: `the key's scope is below "${access === 'public_metrics' || access === 'read_or_link' ? 'read' : access}"`,
      content: { 'application/json': { schema: ref('Error') } },
    },
  };
}

function pathParameters(path: string): JsonSchema[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => ({ name: match[1], in: 'path', required: true, schema: { type: 'string' } }));
}

/** One query parameter per property of the route's query object, its description lifted out of the schema. */
function queryParameters(query: JsonSchema): JsonSchema[] {
  const properties = (query.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((query.required ?? []) as string[]);
  return Object.entries(properties).map(([name, { description, ...schema }]) => ({
    name,
    in: 'query',
    required: required.has(name),
    ...(description === undefined ? {} : { description }),
    schema,
  }));
}

/** `getApiV1RunsRunIdReport` from GET /api/v1/runs/{runId}/report. */
function operationIdOf(route: ApiRoute): string {
  return `${route.method}${route.path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_match, next: string | undefined) => (next ?? '').toUpperCase())}`;
}

export interface OpenApiOptions {
  version: string;
  /** The BullMQ dashboard is mounted at /admin/queues (not an operation of the document: a browser UI). */
  bullBoard?: boolean;
}

export function buildOpenApiDocument(routes: readonly ApiRoute[], options: OpenApiOptions): JsonSchema {
  const catalog = new SchemaCatalog(COMPONENTS);
  for (const route of routes) {
    if (route.query) catalog.note(route.query, 'input');
    if (route.body) catalog.note(route.body, 'input');
    for (const response of Object.values(route.responses)) if (response.json) catalog.note(response.json, 'output');
  }
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const parameters = [...pathParameters(route.path), ...(route.query ? queryParameters(catalog.jsonOf(route.query, 'input')) : [])];
    const responses = Object.fromEntries(
      Object.entries(route.responses).map(([status, response]) => [
        status,
        {
          description: response.description,
          ...(response.json ? { content: { 'application/json': { schema: catalog.jsonOf(response.json, 'output') } } } : {}),
          ...(response.media
            ? {
                content: {
                  [response.media.type]: {
                    schema: { type: 'string', ...(response.media.description ? { description: response.media.description } : {}) },
                  },
                },
              }
            : {}),
        },
      ]),
    );
    paths[route.path] = {
      ...paths[route.path],
      [route.method]: {
        operationId: operationIdOf(route),
        summary: route.summary,
        tags: [route.tag],
        ...(parameters.length > 0 ? { parameters } : {}),
        ...(route.body
          ? { requestBody: { required: false, content: { 'application/json': { schema: catalog.jsonOf(route.body, 'input') } } } }
          : {}),
        ...securityOf(route.access),
        responses: { ...responses, ...authResponses(route.access) },
      },
    };
  }
  const document = {
    openapi: '3.1.0',
    info: {
      title: 'Assay API',
      version: options.version,
      description: `Projects, discovery runs with live progress, results, reports and feedback.${options.bullBoard ? ' The BullMQ dashboard is served at /admin/queues.' : ''}`,
    },
    paths,
    security: [{ bearer: [] }],
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key from `assay api-key create` (scopes read < run < admin; a key may be bound to one project)',
        },
      },
      schemas: catalog.components(),
    },
  };
  catalog.assertAddressable(document);
  return document;
}
