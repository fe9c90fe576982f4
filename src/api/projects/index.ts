/**
 * Project routes: create, list, read, update (state machine enforced), the pack-generation lifecycle
 * (pack-routes.ts), the project's runs, discovery, estimate and feedback, and checking claims against
 * the project's warehouse.
 */
import type { Context } from 'hono';
import { z } from 'zod';
import { ConflictError } from '../../errors/index.js';
import { requireUnbound, visibleProject, visibleProjects } from '../auth/access.js';
import { principalOf, requireScope } from '../auth/middleware.js';
import type { ApiDeps } from '../context.js';
import { estimateDiscovery, startDiscovery } from '../discovery.js';
import type { KeyedLock } from '../../concurrency/keyed-lock.js';
import { describeClaimTables, readClaims, verifyClaims } from '../../discovery/claims/verify-claims.js';
import { feedbackSchema, projectSchema } from '../../domain/index.js';
import { readJsonValue } from '../request.js';
import { error, invalid, missing } from '../responses.js';
import { type ApiRoute, defineRoute } from '../routing.js';
import { runSummary, runSummarySchema } from '../runs/run-summary.js';
import {
  createProjectBodySchema,
  discoverBodySchema,
  estimateBodySchema,
  estimateResponseSchema,
  listQuerySchema,
  updateProjectBodySchema,
  verdictsSchema,
  verifyBodySchema,
} from '../schemas.js';
import { acceptPackDraft, resolvePack } from '../../discovery/packs/generation/index.js';
import { packRoutes } from './pack-routes.js';
import { loadPackFor, namesOwnTargets, newProject, updatedProject } from './project-document.js';
import { withProjectPorts } from './project-ports.js';

/** What POST /projects/:id/discover answers. */
const startedRunSchema = z.object({ run_id: z.string(), status: z.string() });

export function projectRoutes(deps: ApiDeps, locks: KeyedLock): ApiRoute[] {
  const { runtime } = deps;
  const projectOf = (c: Context) => visibleProject(c, runtime, c.req.param('id') as string);

  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/projects',
      access: 'run',
      summary: 'Create a project on the served warehouse with a domain pack',
      tag: 'projects',
      body: createProjectBodySchema,
      responses: { 201: { description: 'created', json: projectSchema }, 400: invalid, 409: error('a project with this id exists') },
      handler: async (c, { body }) => {
        requireUnbound(c, 'creating a project');
        if (namesOwnTargets(body, deps.config.warehouse))
          requireScope(c, 'admin', 'a project with its own warehouse, models, embedder or secrets');
        const pack = loadPackFor((slug) => runtime.loadPack(slug), body.domain, 'domain');
        const project = newProject(
          body,
          pack,
          { warehouse: deps.config.warehouse, llm: deps.config.llm, embedder: deps.config.embedder, allow: deps.config.api.allow },
          runtime.now(),
        );
        await locks.run(`project:${project.id}`, async () => {
          if (await runtime.store.getProject(project.id))
            throw new ConflictError(`project ${project.id} already exists`, { projectId: project.id });
          await runtime.store.upsertProject(project);
        });
        c.header('Location', `/api/v1/projects/${project.id}`);
        return c.json(project, 201);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/projects',
      access: 'read',
      summary: 'List projects',
      tag: 'projects',
      responses: { 200: { description: 'projects', json: z.object({ projects: z.array(projectSchema) }) } },
      handler: async (c) => c.json({ projects: visibleProjects(c, await runtime.store.listProjects()) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/projects/{id}',
      access: 'read',
      summary: 'One project',
      tag: 'projects',
      responses: { 200: { description: 'the project', json: projectSchema }, 404: missing('the project') },
      handler: async (c) => c.json(await projectOf(c)),
    }),
    defineRoute({
      method: 'put',
      path: '/api/v1/projects/{id}',
      access: 'run',
      summary: 'Update a project; `state` follows the project state machine',
      tag: 'projects',
      body: updateProjectBodySchema,
      responses: {
        200: { description: 'updated', json: projectSchema },
        400: invalid,
        404: missing('the project'),
        409: error('illegal state transition'),
      },
      handler: async (c, { body }) => {
        await projectOf(c);
        // which rows a run may read (tenant filter, datasets) is the operator's call, not a run key's
        if (body.warehouse !== undefined || namesOwnTargets(body, deps.config.warehouse))
          requireScope(c, 'admin', "changing a project's warehouse, tenant filter, datasets, models, embedder or secrets");
        const project = await locks.run(`project:${c.req.param('id')}`, async () => {
          const found = await projectOf(c);
          // the seed's accept (state "ready" after generation) freezes the draft, as POST pack-accept does
          const current =
            body.state === 'ready' && found.state === 'pack_generation_done' && found.pack_draft
              ? acceptPackDraft(found, runtime.now()).project
              : found;
          const pack = loadPackFor((slug) => resolvePack((name) => runtime.loadPack(name), slug, current), current.domain, 'domain');
          const next = updatedProject(current, body, pack, runtime.now(), {
            warehouse: deps.config.warehouse,
            allow: deps.config.api.allow,
          });
          await runtime.store.upsertProject(next);
          return next;
        });
        return c.json(project);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/projects/{id}/runs',
      access: 'read',
      summary: "The project's runs, newest first (summaries)",
      tag: 'runs',
      query: listQuerySchema,
      responses: {
        200: { description: 'run summaries', json: z.object({ runs: z.array(runSummarySchema) }) },
        400: invalid,
        404: missing('the project'),
      },
      handler: async (c, { query }) => {
        const project = await projectOf(c);
        const runs = await runtime.store.listRuns(project.id, { limit: query.limit });
        return c.json({ runs: runs.map(runSummary) });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/projects/{id}/discover',
      access: 'run',
      summary: 'Start a discovery run',
      tag: 'runs',
      body: discoverBodySchema,
      responses: {
        202: { description: 'run created and launched', json: startedRunSchema },
        400: invalid,
        404: missing('the project'),
        409: error('a run is already active, or the project is not ready'),
      },
      handler: async (c, { body }) => {
        const project = await projectOf(c);
        const run = await startDiscovery(deps, locks, project.id, body, principalOf(c)?.keyId);
        c.header('Location', `/api/v1/runs/${run.id}`);
        return c.json({ run_id: run.id, status: run.status } satisfies z.infer<typeof startedRunSchema>, 202);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/projects/{id}/discover/estimate',
      access: 'read',
      summary: 'Estimate the LLM tokens and cost of a run (computed in-process)',
      tag: 'runs',
      body: estimateBodySchema,
      responses: { 200: { description: 'the estimate', json: estimateResponseSchema }, 400: invalid, 404: missing('the project') },
      handler: async (c, { body }) => {
        const project = await projectOf(c);
        return c.json(await estimateDiscovery(deps, project.id, body));
      },
    }),
    // any claim in the schema (docs/claims.md), recounted on the project's own warehouse: no run, no model
    defineRoute({
      method: 'post',
      path: '/api/v1/projects/{id}/verify',
      access: 'run',
      summary:
        "Check claims (docs/claims.md) against the project's warehouse with SQL the verifier builds from each claim: a verdict per claim (confirmed, adjusted, rejected, unverified, error) with both values recounted, the test, n, the reasoning and the SQL",
      tag: 'projects',
      body: verifyBodySchema,
      // readClaims names each problem at its claim's path (`claims.2.direction`)
      readElsewhere: ['body'],
      responses: {
        200: { description: 'one verdict per claim, in the order sent', json: verdictsSchema },
        400: invalid,
        404: missing('the project'),
        502: error('the warehouse could not be described'),
      },
      handler: async (c) => {
        const { claims } = readClaims(await readJsonValue(c));
        const project = await projectOf(c);
        const signal = c.req.raw.signal;
        const verdicts = await withProjectPorts(runtime, project, async (ports) =>
          verifyClaims({
            warehouse: ports.warehouse,
            tables: await describeClaimTables(ports.warehouse, signal),
            claims,
            minSupport: deps.config.mining.minSupport,
            timeoutMs: deps.config.sql.timeoutMs,
            signal,
          }),
        );
        return c.json({ verdicts } satisfies z.infer<typeof verdictsSchema>);
      },
    }),
    ...packRoutes(deps, locks),
    defineRoute({
      method: 'get',
      path: '/api/v1/projects/{id}/feedback',
      access: 'read',
      summary: "The project's feedback",
      tag: 'feedback',
      responses: { 200: { description: 'feedback', json: z.object({ feedback: z.array(feedbackSchema) }) }, 404: missing('the project') },
      handler: async (c) => {
        const project = await projectOf(c);
        return c.json({ feedback: await runtime.store.listFeedback(project.id) });
      },
    }),
  ];
}
