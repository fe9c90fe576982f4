/**
 * Project routes: create, list, read, update (state machine enforced), the pack-generation lifecycle
 * (pack-routes.ts), the project's runs, discovery, estimate and feedback, and checking claims against
 * the project's warehouse.
 */
import { Hono } from 'hono';
import { ConflictError } from '../../errors/index.js';
import { requireUnbound, visibleProject, visibleProjects } from '../auth/access.js';
import { principalOf, requireScope } from '../auth/middleware.js';
import type { ApiDeps } from '../context.js';
import { estimateDiscovery, startDiscovery } from '../discovery.js';
import type { KeyedLock } from '../../concurrency/keyed-lock.js';
import { describeClaimTables, readClaims, verifyClaims } from '../../discovery/claims/verify-claims.js';
import { readJsonBody, readJsonValue, readQuery } from '../request.js';
import { runSummary } from '../runs/run-summary.js';
import { createProjectBodySchema, discoverBodySchema, estimateBodySchema, listQuerySchema, updateProjectBodySchema } from '../schemas.js';
import { acceptPackDraft, resolvePack } from '../../discovery/packs/generation/index.js';
import { packRoutes } from './pack-routes.js';
import { loadPackFor, namesOwnTargets, newProject, updatedProject } from './project-document.js';
import { withProjectPorts } from './project-ports.js';

export function projectRoutes(deps: ApiDeps, locks: KeyedLock): Hono {
  const { runtime } = deps;
  const app = new Hono();

  app.post('/projects', async (c) => {
    requireUnbound(c, 'creating a project');
    const body = await readJsonBody(c, createProjectBodySchema);
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
  });

  app.get('/projects', async (c) => c.json({ projects: visibleProjects(c, await runtime.store.listProjects()) }));

  app.get('/projects/:id', async (c) => c.json(await visibleProject(c, runtime, c.req.param('id'))));

  app.put('/projects/:id', async (c) => {
    const body = await readJsonBody(c, updateProjectBodySchema);
    await visibleProject(c, runtime, c.req.param('id'));
    // which rows a run may read (tenant filter, datasets) is the operator's call, not a run key's
    if (body.warehouse !== undefined || namesOwnTargets(body, deps.config.warehouse))
      requireScope(c, 'admin', "changing a project's warehouse, tenant filter, datasets, models, embedder or secrets");
    const project = await locks.run(`project:${c.req.param('id')}`, async () => {
      const found = await visibleProject(c, runtime, c.req.param('id'));
      // the seed's accept (state "ready" after generation) freezes the draft, as POST pack-accept does
      const current =
        body.state === 'ready' && found.state === 'pack_generation_done' && found.pack_draft
          ? acceptPackDraft(found, runtime.now()).project
          : found;
      const pack = loadPackFor((slug) => resolvePack((name) => runtime.loadPack(name), slug, current), current.domain, 'domain');
      const next = updatedProject(current, body, pack, runtime.now(), { warehouse: deps.config.warehouse, allow: deps.config.api.allow });
      await runtime.store.upsertProject(next);
      return next;
    });
    return c.json(project);
  });

  app.get('/projects/:id/runs', async (c) => {
    const { limit } = readQuery(c, listQuerySchema);
    const project = await visibleProject(c, runtime, c.req.param('id'));
    const runs = await runtime.store.listRuns(project.id, { limit });
    return c.json({ runs: runs.map(runSummary) });
  });

  app.post('/projects/:id/discover', async (c) => {
    const body = await readJsonBody(c, discoverBodySchema);
    const project = await visibleProject(c, runtime, c.req.param('id'));
    const run = await startDiscovery(deps, locks, project.id, body, principalOf(c)?.keyId);
    c.header('Location', `/api/v1/runs/${run.id}`);
    return c.json({ run_id: run.id, status: run.status }, 202);
  });

  app.post('/projects/:id/discover/estimate', async (c) => {
    const body = await readJsonBody(c, estimateBodySchema);
    const project = await visibleProject(c, runtime, c.req.param('id'));
    return c.json(await estimateDiscovery(deps, project.id, body));
  });

  // any claim in the schema (docs/claims.md), recounted on the project's own warehouse: no run, no model
  app.post('/projects/:id/verify', async (c) => {
    const { claims } = readClaims(await readJsonValue(c));
    const project = await visibleProject(c, runtime, c.req.param('id'));
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
    return c.json({ verdicts });
  });

  app.route('/', packRoutes(deps, locks));

  app.get('/projects/:id/feedback', async (c) => {
    const project = await visibleProject(c, runtime, c.req.param('id'));
    return c.json({ feedback: await runtime.store.listFeedback(project.id) });
  });

  return app;
}
