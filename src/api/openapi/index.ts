/**
 * The OpenAPI 3.1 document of the API. Bodies and documents are generated from the same zod
 * schemas the routes parse with and the store validates (zod 4 `z.toJSONSchema`, JSON Schema
 * 2020-12 as OpenAPI 3.1 uses); the operation table is written by hand next to them, and a test
 * checks that every registered route is in it.
 */
import { z } from 'zod';
import {
  type ApiKeyScope,
  discoveryResultSchema,
  explorationStepSchema,
  feedbackSchema,
  projectSchema,
  runSchema,
} from '../../domain/index.js';
import { packSummarySchema } from '../../runs/pack-summary.js';
import { reportLinkSchema } from '../runs/report-link-view.js';
import { claimVerificationSchema } from '../../discovery/claims/verify-claims.js';
import { runProgressSchema, runSummarySchema } from '../runs/run-summary.js';
import {
  apiKeyViewSchema,
  createApiKeyBodySchema,
  createProjectBodySchema,
  discoverBodySchema,
  errorBodySchema,
  estimateBodySchema,
  feedbackBodySchema,
  packAcceptBodySchema,
  packGenerateBodySchema,
  updateProjectBodySchema,
  verifyBodySchema,
} from '../schemas.js';

type JsonSchema = Record<string, unknown>;

function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

const estimateResponseSchema = z.looseObject({
  project_id: z.string(),
  pack: z.string(),
  areas: z.array(z.string()),
  max_steps: z.number().int(),
  catalog_tokens: z.number().int(),
  catalog_tokens_source: z.enum(['last_run', 'default']),
  /** `cost_usd` without prompt caching; `cost_usd_cached` with it, reading and writing `cache_*_tokens`. */
  llm: z.object({
    model: z.string(),
    input_tokens: z.number(),
    output_tokens: z.number(),
    cost_usd: z.number(),
    cache_read_tokens: z.number(),
    cache_write_tokens: z.number(),
    cost_usd_cached: z.number(),
  }),
  breakdown: z.record(
    z.string(),
    z.object({
      calls: z.number(),
      input_tokens: z.number(),
      output_tokens: z.number(),
      cost_usd: z.number(),
      cache_read_tokens: z.number(),
      cache_write_tokens: z.number(),
      cost_usd_cached: z.number(),
    }),
  ),
  assumptions: z.record(z.string(), z.union([z.number(), z.string()])),
});

const COMPONENTS: Record<string, { schema: z.ZodType; io: 'input' | 'output' }> = {
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
  Verdicts: { schema: z.object({ verdicts: z.array(claimVerificationSchema) }), io: 'output' },
  CreateProjectBody: { schema: createProjectBodySchema, io: 'input' },
  UpdateProjectBody: { schema: updateProjectBodySchema, io: 'input' },
  DiscoverBody: { schema: discoverBodySchema, io: 'input' },
  EstimateBody: { schema: estimateBodySchema, io: 'input' },
  FeedbackBody: { schema: feedbackBodySchema, io: 'input' },
  PackGenerateBody: { schema: packGenerateBodySchema, io: 'input' },
  PackAcceptBody: { schema: packAcceptBodySchema, io: 'input' },
  VerifyBody: { schema: verifyBodySchema, io: 'input' },
  ApiKey: { schema: apiKeyViewSchema, io: 'output' },
  CreatedApiKey: { schema: apiKeyViewSchema.extend({ key: z.string() }), io: 'output' },
  CreateApiKeyBody: { schema: createApiKeyBodySchema, io: 'input' },
};

/**
 * Who may call a route: anyone (`public`), or a key of at least this scope (docs/api.md,
 * "Authentication"); `read_or_link` also admits a signed report link instead of a key.
 */
export type RouteAccess = 'public' | 'public_metrics' | 'read_or_link' | ApiKeyScope;

interface Operation {
  method: 'get' | 'post' | 'put' | 'delete';
  /** The one table of route scopes: the auth middleware reads it, so a route missing here is refused (admin only). */
  access: RouteAccess;
  /** OpenAPI path template (`{id}`). */
  path: string;
  summary: string;
  tag: string;
  body?: string;
  /** status → [description, JSON component name | media type + schema]. */
  responses: Record<number, { description: string; json?: JsonSchema; media?: { type: string; schema: JsonSchema } }>;
  query?: Array<{ name: string; description: string; schema: JsonSchema }>;
}

const error = (description: string) => ({ description, json: ref('Error') });
const invalid = error('invalid body or parameters; `issues` names each field');
const missing = (what: string) => error(`${what} does not exist`);
const listOf = (key: string, item: string): JsonSchema => ({
  type: 'object',
  properties: { [key]: { type: 'array', items: ref(item) } },
  required: [key],
});
const limitQuery = [
  {
    name: 'limit',
    description: 'at most this many, newest first (1-100, default 20)',
    schema: { type: 'integer', minimum: 1, maximum: 100 },
  },
];

export const OPERATIONS: readonly Operation[] = [
  {
    method: 'get',
    access: 'public',
    path: '/health',
    summary: 'Liveness: the process answers',
    tag: 'health',
    responses: { 200: { description: 'alive', json: { type: 'object', properties: { status: { const: 'ok' } } } } },
  },
  {
    method: 'get',
    access: 'public',
    path: '/health/ready',
    summary: 'Readiness: the store and the warehouse answer',
    tag: 'health',
    responses: {
      200: { description: 'ready', json: { type: 'object', properties: { status: { type: 'string' }, checks: { type: 'object' } } } },
      503: {
        description: 'a dependency is unreachable or slow',
        json: { type: 'object', properties: { status: { type: 'string' }, checks: { type: 'object' } } },
      },
    },
  },
  {
    method: 'get',
    access: 'public_metrics',
    path: '/metrics',
    summary: 'Prometheus metrics (text exposition format)',
    tag: 'operations',
    responses: { 200: { description: 'metrics', media: { type: 'text/plain', schema: { type: 'string' } } } },
  },
  {
    method: 'get',
    access: 'read',
    path: '/openapi.json',
    summary: 'This document',
    tag: 'operations',
    responses: { 200: { description: 'OpenAPI 3.1 document', json: { type: 'object' } } },
  },
  {
    method: 'get',
    access: 'read',
    path: '/api/v1/packs',
    summary: 'The domain packs a project can use: areas and categories in analysis order (what `assay packs list` shows)',
    tag: 'packs',
    responses: { 200: { description: 'packs', json: listOf('packs', 'PackSummary') } },
  },
  {
    method: 'post',
    access: 'run',
    path: '/api/v1/projects',
    summary: 'Create a project on the served warehouse with a domain pack',
    tag: 'projects',
    body: 'CreateProjectBody',
    responses: { 201: { description: 'created', json: ref('Project') }, 400: invalid, 409: error('a project with this id exists') },
  },
  {
    method: 'get',
    access: 'read',
    path: '/api/v1/projects',
    summary: 'List projects',
    tag: 'projects',
    responses: { 200: { description: 'projects', json: listOf('projects', 'Project') } },
  },
  {
    method: 'get',
    access: 'read',
    path: '/api/v1/projects/{id}',
    summary: 'One project',
    tag: 'projects',
    responses: { 200: { description: 'the project', json: ref('Project') }, 404: missing('the project') },
  },
  {
    method: 'put',
    access: 'run',
    path: '/api/v1/projects/{id}',
    summary: 'Update a project; `state` follows the project state machine',
    tag: 'projects',
    body: 'UpdateProjectBody',
    responses: {
      200: { description: 'updated', json: ref('Project') },
      400: invalid,
      404: missing('the project'),
      409: error('illegal state transition'),
    },
  },
  {
    method: 'post',
    access: 'run',
    path: '/api/v1/projects/{id}/pack-generate',
    summary:
      'Generate a draft pack for the project from its warehouse schema: pack_generation_pending → pack_generation → pack_generation_done; the draft is stored as `pack_draft`',
    tag: 'projects',
    body: 'PackGenerateBody',
    responses: {
      200: { description: 'the project, in pack_generation_done, with its draft pack', json: ref('Project') },
      400: invalid,
      404: missing('the project'),
      409: error('the project is not in pack_generation_pending (the message names its state), or a generation is running'),
      422: error('the warehouse has too little structure for a pack'),
    },
  },
  {
    method: 'post',
    access: 'run',
    path: '/api/v1/projects/{id}/pack-accept',
    summary:
      'Freeze the draft (or edited `files`, admin keys only) as the next pack version and make the project ready; on a ready project, edited `files` add a version. Runs keep the version they named.',
    tag: 'projects',
    body: 'PackAcceptBody',
    responses: {
      200: { description: 'the project, ready, with `domain` = project:<id>@<version>', json: ref('Project') },
      400: invalid,
      404: missing('the project'),
      403: error('`files` sent with a key below admin'),
      409: error('the project is not in pack_generation_done (or ready with files); the message names its state'),
    },
  },
  {
    method: 'get',
    access: 'read',
    path: '/api/v1/projects/{id}/runs',
    summary: "The project's runs, newest first (summaries)",
    tag: 'runs',
    query: limitQuery,
    responses: { 200: { description: 'run summaries', json: listOf('runs', 'RunSummary') }, 404: missing('the project') },
  },
  {
    method: 'post',
    access: 'run',
    path: '/api/v1/projects/{id}/discover',
    summary: 'Start a discovery run',
    tag: 'runs',
    body: 'DiscoverBody',
    responses: {
      202: {
        description: 'run created and launched',
        json: { type: 'object', properties: { run_id: { type: 'string' }, status: { type: 'string' } }, required: ['run_id', 'status'] },
      },
      400: invalid,
      404: missing('the project'),
      409: error('a run is already active, or the project is not ready'),
    },
  },
  {
    method: 'post',
    access: 'read',
    path: '/api/v1/projects/{id}/discover/estimate',
    summary: 'Estimate the LLM tokens and cost of a run (computed in-process)',
    tag: 'runs',
    body: 'EstimateBody',
    responses: { 200: { description: 'the estimate', json: ref('Estimate') }, 400: invalid, 404: missing('the project') },
  },
  {
    method: 'post',
    access: 'run',
    path: '/api/v1/projects/{id}/verify',
    summary:
      "Check claims (docs/claims.md) against the project's warehouse with SQL the verifier builds from each claim: a verdict per claim (confirmed, adjusted, rejected, unverified, error) with both values recounted, the test, n, the reasoning and the SQL",
    tag: 'projects',
    body: 'VerifyBody',
    responses: {
      200: { description: 'one verdict per claim, in the order sent', json: ref('Verdicts') },
      400: invalid,
      404: missing('the project'),
      502: error('the warehouse could not be described'),
    },
  },
  {
    method: 'get',
    access: 'read',
    path: '/api/v1/projects/{id}/feedback',
    summary: "The project's feedback",
    tag: 'feedback',
    responses: { 200: { description: 'feedback', json: listOf('feedback', 'Feedback') }, 404: missing('the project') },
  },
  {
    method: 'get',
    access: 'read',
    path: '/api/v1/runs/{runId}',
    summary: 'The run document (live status, phase, progress, telemetry)',
    tag: 'runs',
    responses: { 200: { description: 'the run', json: ref('Run') }, 404: missing('the run') },
  },
  {
    method: 'delete',
    access: 'run',
    path: '/api/v1/runs/{runId}',
    summary: 'Cancel a pending or running run',
    tag: 'runs',
    responses: {
      202: { description: 'cancelled', json: ref('RunSummary') },
      404: missing('the run'),
      409: error('the run already finished'),
    },
  },
  {
    method: 'get',
    access: 'read',
    path: '/api/v1/runs/{runId}/steps',
    summary: 'Exploration steps, in order',
    tag: 'runs',
    responses: { 200: { description: 'steps', json: listOf('steps', 'ExplorationStep') }, 404: missing('the run') },
  },
  {
    method: 'get',
    access: 'read',
    path: '/api/v1/runs/{runId}/result',
    summary: 'The discovery result of a finished run',
    tag: 'runs',
    responses: { 200: { description: 'the result', json: ref('DiscoveryResult') }, 404: missing('the run or its result') },
  },
  {
    method: 'get',
    access: 'read_or_link',
    path: '/api/v1/runs/{runId}/report',
    summary:
      'The self-contained HTML report of a finished run (a bearer key, or the signed `key`, `expires`, `signature` of a report link)',
    tag: 'runs',
    query: [
      { name: 'key', description: 'report link: the id of the key that signed it', schema: { type: 'string' } },
      { name: 'expires', description: 'report link: expiry, Unix seconds', schema: { type: 'integer' } },
      { name: 'signature', description: 'report link: HMAC of the key id, run id and expiry', schema: { type: 'string' } },
    ],
    responses: {
      200: { description: 'HTML page', media: { type: 'text/html', schema: { type: 'string' } } },
      404: missing('the run or its result'),
    },
  },
  {
    method: 'get',
    access: 'read',
    path: '/api/v1/runs/{runId}/report-link',
    summary: 'A link to the report that opens in a browser: signed with this key, expiring (default 1 h, `expires_in` up to 7 days)',
    tag: 'runs',
    query: [
      {
        name: 'expires_in',
        description: 'seconds the link works (60-604800, default 3600)',
        schema: { type: 'integer', minimum: 60, maximum: 604800 },
      },
    ],
    responses: { 200: { description: 'the link', json: ref('ReportLink') }, 400: invalid, 404: missing('the run') },
  },
  {
    method: 'get',
    access: 'read',
    path: '/api/v1/runs/{runId}/events',
    summary: 'Server-sent events: `progress` (RunProgress JSON) on every change, heartbeat comments, `end` when the run is terminal',
    tag: 'runs',
    responses: {
      200: {
        description: 'event stream',
        media: {
          type: 'text/event-stream',
          schema: { type: 'string', description: 'data of `progress` events: RunProgress; of `end`: {run_id, status, run_type}' },
        },
      },
      404: missing('the run'),
    },
  },
  {
    method: 'post',
    access: 'run',
    path: '/api/v1/runs/{runId}/feedback',
    summary: 'Like or dislike an insight, recommendation or step (one per target: a new rating replaces the old)',
    tag: 'feedback',
    body: 'FeedbackBody',
    responses: { 200: { description: 'stored', json: ref('Feedback') }, 400: invalid, 404: missing('the run or the target') },
  },
  {
    method: 'get',
    access: 'admin',
    path: '/api/v1/api-keys',
    summary: 'List API keys (never their secrets or hashes); needs an admin key not bound to a project',
    tag: 'api-keys',
    responses: { 200: { description: 'keys', json: listOf('api_keys', 'ApiKey') } },
  },
  {
    method: 'post',
    access: 'admin',
    path: '/api/v1/api-keys',
    summary: 'Create an API key; the response is the only time the key is shown',
    tag: 'api-keys',
    body: 'CreateApiKeyBody',
    responses: { 201: { description: 'created', json: ref('CreatedApiKey') }, 400: invalid },
  },
  {
    method: 'delete',
    access: 'admin',
    path: '/api/v1/api-keys/{keyId}',
    summary: 'Revoke an API key (its record stays, with revoked_at)',
    tag: 'api-keys',
    responses: { 200: { description: 'revoked', json: ref('ApiKey') }, 404: missing('the key') },
  },
];

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

export function buildOpenApiDocument(options: { version: string; bullBoard?: boolean }): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const operation of OPERATIONS) {
    const parameters = [
      ...pathParameters(operation.path),
      ...(operation.query ?? []).map((parameter) => ({ ...parameter, in: 'query', required: false })),
    ];
    const responses = Object.fromEntries(
      Object.entries(operation.responses).map(([status, response]) => [
        status,
        {
          description: response.description,
          ...(response.json ? { content: { 'application/json': { schema: response.json } } } : {}),
          ...(response.media ? { content: { [response.media.type]: { schema: response.media.schema } } } : {}),
        },
      ]),
    );
    paths[operation.path] = {
      ...paths[operation.path],
      [operation.method]: {
        operationId: `${operation.method}${operation.path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_match, next: string | undefined) => (next ?? '').toUpperCase())}`,
        summary: operation.summary,
        tags: [operation.tag],
        ...(parameters.length > 0 ? { parameters } : {}),
        ...(operation.body ? { requestBody: { required: false, content: { 'application/json': { schema: ref(operation.body) } } } } : {}),
        ...securityOf(operation.access),
        responses: { ...responses, ...authResponses(operation.access) },
      },
    };
  }
  return {
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
      schemas: Object.fromEntries(Object.entries(COMPONENTS).map(([name, { schema, io }]) => [name, jsonSchemaOf(schema, io)])),
    },
  };
}
