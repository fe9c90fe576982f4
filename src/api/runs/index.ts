/** Run routes: the run document, its steps, result and HTML report, cancellation, live progress (SSE) and feedback. */
import type { Context } from 'hono';
import { z } from 'zod';
import { runAreaSummaries } from '../../discovery/phases/run-setting.js';
import { discoveryResultSchema, explorationStepSchema, feedbackSchema, isTerminal, type Run, runSchema } from '../../domain/index.js';
import { ConflictError, NotFoundError } from '../../errors/index.js';
import { renderRunReport } from '../../report/index.js';
import { visibleRun } from '../auth/access.js';
import { principalOf } from '../auth/middleware.js';
import type { ApiDeps } from '../context.js';
import { error, invalid, missing } from '../responses.js';
import { type ApiRoute, defineRoute } from '../routing.js';
import { feedbackBodySchema, reportLinkParamsSchema, reportLinkQuerySchema } from '../schemas.js';
import { signReportLink } from '../auth/report-links.js';
import { type ReportLink, reportLinkSchema } from './report-link-view.js';
import { streamRunEvents, type RunEventsOptions } from './events.js';
import { feedbackFor } from './feedback.js';
import { runSummary, runSummarySchema } from './run-summary.js';

export type RunRoutesOptions = Pick<RunEventsOptions, 'pollIntervalMs' | 'heartbeatMs'>;

export function runRoutes(deps: ApiDeps, options: RunRoutesOptions = {}): ApiRoute[] {
  const { runtime } = deps;
  const runOf = (c: Context) => visibleRun(c, runtime, c.req.param('runId') as string);

  async function requireResult(run: Run) {
    const result = await runtime.store.getResult(run.id);
    if (!result)
      throw new NotFoundError(`run ${run.id} has no result yet (status ${run.status}); it is written when the run finishes`, {
        runId: run.id,
        status: run.status,
      });
    return result;
  }

  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/runs/{runId}',
      access: 'read',
      summary: 'The run document (live status, phase, progress, telemetry)',
      tag: 'runs',
      responses: { 200: { description: 'the run', json: runSchema }, 404: missing('the run') },
      handler: async (c) => c.json(await runOf(c)),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/v1/runs/{runId}',
      access: 'run',
      summary: 'Cancel a pending or running run',
      tag: 'runs',
      responses: {
        202: { description: 'cancelled', json: runSummarySchema },
        404: missing('the run'),
        409: error('the run already finished'),
      },
      handler: async (c) => {
        const run = await runOf(c);
        if (isTerminal(run.status))
          throw new ConflictError(`run ${run.id} is already ${run.status}; only pending or running runs can be cancelled`, {
            runId: run.id,
            status: run.status,
          });
        await deps.launcher.cancel(run.id);
        return c.json(runSummary(await visibleRun(c, runtime, run.id)), 202);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/runs/{runId}/steps',
      access: 'read',
      summary: 'Exploration steps, in order',
      tag: 'runs',
      responses: { 200: { description: 'steps', json: z.object({ steps: z.array(explorationStepSchema) }) }, 404: missing('the run') },
      handler: async (c) => {
        const run = await runOf(c);
        return c.json({ steps: await runtime.store.listSteps(run.id) });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/runs/{runId}/result',
      access: 'read',
      summary: 'The discovery result of a finished run',
      tag: 'runs',
      responses: { 200: { description: 'the result', json: discoveryResultSchema }, 404: missing('the run or its result') },
      handler: async (c) => c.json(await requireResult(await runOf(c))),
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/runs/{runId}/report',
      access: 'read_or_link',
      summary:
        'The self-contained HTML report of a finished run (a bearer key, or the signed `key`, `expires`, `signature` of a report link)',
      tag: 'runs',
      // the auth middleware checks the link before the route runs
      query: reportLinkParamsSchema,
      readElsewhere: ['query'],
      responses: {
        200: { description: 'HTML page', media: { type: 'text/html' } },
        404: missing('the run or its result'),
      },
      handler: async (c) => {
        const run = await runOf(c);
        const result = await requireResult(run);
        const steps = await runtime.store.listSteps(run.id);
        const areas = runAreaSummaries(runtime.loadPack, run);
        return c.html(renderRunReport({ run, result, steps, ...(areas ? { areas } : {}) }));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/runs/{runId}/report-link',
      access: 'read',
      summary: 'A link to the report that opens in a browser: signed with this key, expiring (default 1 h, `expires_in` up to 7 days)',
      tag: 'runs',
      query: reportLinkQuerySchema,
      responses: { 200: { description: 'the link', json: reportLinkSchema }, 400: invalid, 404: missing('the run') },
      handler: async (c, { query }) => {
        const run = await runOf(c);
        const principal = principalOf(c);
        const record = principal ? await runtime.store.getApiKey(principal.keyId) : null;
        if (!record) throw new NotFoundError('the key of this request no longer exists');
        const expires = Math.floor(runtime.now().getTime() / 1000) + query.expires_in;
        const link = signReportLink(record.secret_hash, record.id, run.id, expires);
        return c.json({
          url: `${new URL(c.req.url).origin}${link.path}`,
          path: link.path,
          expires_at: new Date(expires * 1000).toISOString(),
        } satisfies ReportLink);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/runs/{runId}/events',
      access: 'read',
      summary: 'Server-sent events: `progress` (RunProgress JSON) on every change, heartbeat comments, `end` when the run is terminal',
      tag: 'runs',
      responses: {
        200: {
          description: 'event stream',
          media: { type: 'text/event-stream', description: 'data of `progress` events: RunProgress; of `end`: {run_id, status, run_type}' },
        },
        404: missing('the run'),
      },
      handler: async (c) => {
        const run = await runOf(c);
        const keyId = principalOf(c)?.keyId;
        const release = keyId === undefined ? () => undefined : deps.limits.streams.acquire(keyId);
        try {
          return await streamRunEvents(c, run.id, { store: runtime.store, logger: deps.logger, ...options, onClose: release });
        } catch (error) {
          release();
          throw error;
        }
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/runs/{runId}/feedback',
      access: 'run',
      summary: 'Like or dislike an insight, recommendation or step (one per target: a new rating replaces the old)',
      tag: 'feedback',
      body: feedbackBodySchema,
      responses: { 200: { description: 'stored', json: feedbackSchema }, 400: invalid, 404: missing('the run or the target') },
      handler: async (c, { body }) => {
        const run = await runOf(c);
        const feedback = feedbackFor(
          run,
          body.target_type === 'exploration_step' ? await runtime.store.listSteps(run.id) : [],
          body,
          runtime.now(),
        );
        await runtime.store.upsertFeedback(feedback);
        return c.json(feedback);
      },
    }),
  ];
}
