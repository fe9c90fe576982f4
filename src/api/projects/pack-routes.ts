/**
 * The pack-generation lifecycle of a project (discovery-lifecycle seed): `pack-generate` moves a
 * `pack_generation_pending` project through `pack_generation` to `pack_generation_done` with a draft
 * pack stored on it; `pack-accept` freezes the draft (or an edited document) as the next numbered
 * version, points the project's `domain` at `project:<id>@<version>` and makes the project `ready`.
 * On a `ready` project, `pack-accept` with edited files adds a version: runs already created keep the
 * version they named. Accepting the draft needs a `run` key; sending files (prompt text of the
 * caller's own) needs `admin`.
 */
import { Hono } from 'hono';
import type { KeyedLock } from '../../concurrency/keyed-lock.js';
import {
  GENERAL_PACK_SLUG,
  acceptPackDraft,
  freezePackVersion,
  generatePack,
  packSlugFrom,
  type FrozenPack,
  type GeneratedPack,
} from '../../discovery/packs/generation/index.js';
import { catalogBudgetTokens } from '../../discovery/phases/run-setting.js';
import type { PackDraft, Project } from '../../domain/index.js';
import { ConflictError, describeError } from '../../errors/index.js';
import { parseLlmSpec } from '../../llm/factory.js';
import { visibleProject } from '../auth/access.js';
import { requireScope } from '../auth/middleware.js';
import type { ApiDeps } from '../context.js';
import { assertTransition } from '../project-state.js';
import { withProjectPorts } from './project-ports.js';
import { readJsonBody } from '../request.js';
import { packAcceptBodySchema, packGenerateBodySchema } from '../schemas.js';

/**
 * A generation still `running` after this long is presumed lost (the process handling it died): a new
 * request may start over instead of leaving the project stuck in `pack_generation`.
 */
export const PACK_GENERATION_STALE_MS = 15 * 60 * 1000;

/** Why a generation may not start now, or nothing when it may. */
function generationRefusal(project: Project, now: Date): string | undefined {
  const needs = `pack generation needs state "pack_generation_pending"`;
  switch (project.state) {
    case 'pack_generation_pending':
      return undefined;
    case 'pack_generation': {
      const last = project.pack_generation;
      if (last?.status !== 'running') return undefined;
      if (now.getTime() - Date.parse(last.started_at) >= PACK_GENERATION_STALE_MS) return undefined;
      return `project ${project.id} is in state "pack_generation": a generation started at ${last.started_at} is still running`;
    }
    case 'pack_generation_done':
      return `project ${project.id} is in state "pack_generation_done": ${needs}; accept the draft with POST /api/v1/projects/${project.id}/pack-accept (optionally with edited files)`;
    case 'ready':
      return `project ${project.id} is in state "ready": ${needs}; to change its pack, POST edited files to /api/v1/projects/${project.id}/pack-accept`;
  }
}

export function packRoutes(deps: ApiDeps, locks: KeyedLock): Hono {
  const { runtime } = deps;
  const app = new Hono();
  const lockOf = (projectId: string) => `project:${projectId}`;

  app.post('/projects/:id/pack-generate', async (c) => {
    const body = await readJsonBody(c, packGenerateBodySchema);
    const projectId = c.req.param('id');
    await visibleProject(c, runtime, projectId);
    // the state is the lock between requests: only one request moves the project into a running generation
    const started = await locks.run(lockOf(projectId), async () => {
      const current = await visibleProject(c, runtime, projectId);
      const now = runtime.now();
      const refusal = generationRefusal(current, now);
      if (refusal) throw new ConflictError(refusal, { projectId, state: current.state });
      assertTransition(current.id, current.state, 'pack_generation');
      const stamp = now.toISOString();
      const next: Project = {
        ...current,
        state: 'pack_generation',
        pack_generation: { status: 'running', started_at: stamp },
        updated_at: stamp,
      };
      await runtime.store.upsertProject(next);
      return next;
    });
    const startedAt = started.pack_generation?.started_at;
    const sameGeneration = (project: Project) => project.state === 'pack_generation' && project.pack_generation?.started_at === startedAt;

    let generated: GeneratedPack;
    try {
      generated = await withProjectPorts(runtime, started, async (ports) => {
        // the offline analyst has no use for a prompt: its path is the deterministic generator
        const useModel = parseLlmSpec(started.llm).provider !== 'offline';
        const schema = await ports.schema.load(started, {
          areaKeywords: [],
          catalogBudgetTokens: catalogBudgetTokens(ports.llm.entry.contextWindow),
        });
        return generatePack({
          tables: schema.tables,
          samples: schema.samples,
          slug: packSlugFrom(started.id),
          basePack: ports.loadPack(GENERAL_PACK_SLUG),
          name: started.name,
          ...(body.describe ? { describe: body.describe } : {}),
          ...(body.goal ? { goal: body.goal } : {}),
          ...(useModel ? { llm: ports.llm, protocol: ports.config.llmProtocol } : {}),
        });
      });
    } catch (error) {
      await locks.run(lockOf(projectId), async () => {
        const current = await runtime.store.getProject(projectId);
        if (!current || !sameGeneration(current)) return;
        const stamp = runtime.now().toISOString();
        // stays in pack_generation (the seed has no way back); a new request may start over
        await runtime.store.upsertProject({
          ...current,
          pack_generation: { status: 'failed', started_at: startedAt ?? stamp, finished_at: stamp, error: describeError(error) },
          updated_at: stamp,
        });
      });
      throw error;
    }

    const project = await locks.run(lockOf(projectId), async () => {
      const current = await visibleProject(c, runtime, projectId);
      if (!sameGeneration(current))
        throw new ConflictError(
          `project ${projectId} moved on while its pack was generated (state "${current.state}"); the result was discarded`,
          {
            projectId,
            state: current.state,
          },
        );
      assertTransition(current.id, current.state, 'pack_generation_done');
      const stamp = runtime.now().toISOString();
      const draft: PackDraft = {
        slug: generated.pack.slug,
        files: generated.files,
        hash: generated.hash,
        generator: generated.generator,
        ...(generated.generator === 'llm' ? { model: started.llm } : {}),
        notes: generated.notes,
        ...(body.describe ? { describe: body.describe } : {}),
        ...(body.goal ? { goal: body.goal } : {}),
        profile: { ...generated.profile },
        generated_at: stamp,
      };
      const next: Project = {
        ...current,
        state: 'pack_generation_done',
        pack_draft: draft,
        pack_generation: { status: 'done', started_at: startedAt ?? stamp, finished_at: stamp },
        updated_at: stamp,
      };
      await runtime.store.upsertProject(next);
      return next;
    });
    return c.json(project);
  });

  app.post('/projects/:id/pack-accept', async (c) => {
    const body = await readJsonBody(c, packAcceptBodySchema);
    const projectId = c.req.param('id');
    await visibleProject(c, runtime, projectId);
    // accepting what the generator wrote is a run key's call; prompt text of the caller's own is an operator's
    if (body.files !== undefined) requireScope(c, 'admin', "sending a pack's files (edited prompts)");
    const frozen = await locks.run(lockOf(projectId), async (): Promise<FrozenPack> => {
      const current = await visibleProject(c, runtime, projectId);
      const now = runtime.now();
      let result: FrozenPack;
      if (current.state === 'pack_generation_done') {
        result = acceptPackDraft(current, now, body.files);
      } else if (current.state === 'ready') {
        if (!body.files)
          throw new ConflictError(
            `project ${projectId} is in state "ready" and has no draft: send the edited pack as "files" to freeze a new version`,
            {
              projectId,
              state: current.state,
            },
          );
        result = freezePackVersion(current, body.files, { source: 'edited', now });
      } else {
        throw new ConflictError(
          `project ${projectId} is in state "${current.state}": accepting a pack needs state "pack_generation_done" (or "ready" with edited files)`,
          { projectId, state: current.state },
        );
      }
      await runtime.store.upsertProject(result.project);
      return result;
    });
    return c.json(frozen.project);
  });

  return app;
}
