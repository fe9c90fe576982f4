/**
 * The pack-generation lifecycle of a project (discovery-lifecycle seed): `pack-generate` moves a
 * `pack_generation_pending` project through `pack_generation` to `pack_generation_done` with a draft
 * pack stored on it; `pack-accept` freezes the draft (or an edited document) as the next numbered
 * version, points the project's `domain` at `project:<id>@<version>` and makes the project `ready`.
 * On a `ready` project, `pack-accept` with edited files adds a version: runs already created keep the
 * version they named. Accepting the draft needs a `run` key; sending files (prompt text of the
 * caller's own) needs `admin`.
 */
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
import { type PackDraft, type Project, projectSchema } from '../../domain/index.js';
import { ConflictError, describeError } from '../../errors/index.js';
import { parseLlmSpec } from '../../llm/factory.js';
import { visibleProject } from '../auth/access.js';
import { requireScope } from '../auth/middleware.js';
import type { ApiDeps } from '../context.js';
import { assertTransition } from '../project-state.js';
import { withProjectPorts } from './project-ports.js';
import { error, invalid, missing } from '../responses.js';
import { type ApiRoute, defineRoute } from '../routing.js';
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

export function packRoutes(deps: ApiDeps, locks: KeyedLock): ApiRoute[] {
  const { runtime } = deps;
  const lockOf = (projectId: string) => `project:${projectId}`;

  const generate = defineRoute({
    method: 'post',
    path: '/api/v1/projects/{id}/pack-generate',
    access: 'run',
    summary:
      'Generate a draft pack for the project from its warehouse schema: pack_generation_pending → pack_generation → pack_generation_done; the draft is stored as `pack_draft`',
    tag: 'projects',
    body: packGenerateBodySchema,
    responses: {
      200: { description: 'the project, in pack_generation_done, with its draft pack', json: projectSchema },
      400: invalid,
      404: missing('the project'),
      409: error('the project is not in pack_generation_pending (the message names its state), or a generation is running'),
      422: error('the warehouse has too little structure for a pack'),
    },
    handler: async (c, { body }) => {
      const projectId = c.req.param('id') as string;
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
    },
  });

  const accept = defineRoute({
    method: 'post',
    path: '/api/v1/projects/{id}/pack-accept',
    access: 'run',
    summary:
      'Freeze the draft (or edited `files`, admin keys only) as the next pack version and make the project ready; on a ready project, edited `files` add a version. Runs keep the version they named.',
    tag: 'projects',
    body: packAcceptBodySchema,
    responses: {
      200: { description: 'the project, ready, with `domain` = project:<id>@<version>', json: projectSchema },
      400: invalid,
      404: missing('the project'),
      403: error('`files` sent with a key below admin'),
      409: error('the project is not in pack_generation_done (or ready with files); the message names its state'),
    },
    handler: async (c, { body }) => {
      const projectId = c.req.param('id') as string;
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
    },
  });

  return [generate, accept];
}
