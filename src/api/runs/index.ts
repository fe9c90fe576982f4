/** Run routes: the run document, its steps, result and HTML report, cancellation, live progress (SSE) and feedback. */
import { Hono } from 'hono';
import { runAreaSummaries } from '../../discovery/phases/run-setting.js';
import { isTerminal, type Run } from '../../domain/index.js';
import { ConflictError, NotFoundError } from '../../errors/index.js';
import { renderRunReport } from '../../report/index.js';
import { visibleRun } from '../auth/access.js';
import { principalOf } from '../auth/middleware.js';
import type { ApiDeps } from '../context.js';
import { readJsonBody, readQuery } from '../request.js';
import { feedbackBodySchema, reportLinkQuerySchema } from '../schemas.js';
import { signReportLink } from '../auth/report-links.js';
import type { ReportLink } from './report-link-view.js';
import { streamRunEvents, type RunEventsOptions } from './events.js';
import { feedbackFor } from './feedback.js';
import { runSummary } from './run-summary.js';

export type RunRoutesOptions = Pick<RunEventsOptions, 'pollIntervalMs' | 'heartbeatMs'>;

export function runRoutes(deps: ApiDeps, options: RunRoutesOptions = {}): Hono {
  const { runtime } = deps;
  const app = new Hono();

  async function requireResult(run: Run) {
    const result = await runtime.store.getResult(run.id);
    if (!result)
      throw new NotFoundError(`run ${run.id} has no result yet (status ${run.status}); it is written when the run finishes`, {
        runId: run.id,
        status: run.status,
      });
    return result;
  }

  app.get('/runs/:runId', async (c) => c.json(await visibleRun(c, runtime, c.req.param('runId'))));

  app.get('/runs/:runId/steps', async (c) => {
    const run = await visibleRun(c, runtime, c.req.param('runId'));
    return c.json({ steps: await runtime.store.listSteps(run.id) });
  });

  app.get('/runs/:runId/result', async (c) => {
    const run = await visibleRun(c, runtime, c.req.param('runId'));
    return c.json(await requireResult(run));
  });

  app.get('/runs/:runId/report', async (c) => {
    const run = await visibleRun(c, runtime, c.req.param('runId'));
    const result = await requireResult(run);
    const steps = await runtime.store.listSteps(run.id);
    const areas = runAreaSummaries(runtime.loadPack, run);
    return c.html(renderRunReport({ run, result, steps, ...(areas ? { areas } : {}) }));
  });

  app.get('/runs/:runId/report-link', async (c) => {
    const run = await visibleRun(c, runtime, c.req.param('runId'));
    const { expires_in: seconds } = readQuery(c, reportLinkQuerySchema);
    const principal = principalOf(c);
    const record = principal ? await runtime.store.getApiKey(principal.keyId) : null;
    if (!record) throw new NotFoundError('the key of this request no longer exists');
    const expires = Math.floor(runtime.now().getTime() / 1000) + seconds;
    const link = signReportLink(record.secret_hash, record.id, run.id, expires);
    return c.json({
      url: `${new URL(c.req.url).origin}${link.path}`,
      path: link.path,
      expires_at: new Date(expires * 1000).toISOString(),
    } satisfies ReportLink);
  });

  app.delete('/runs/:runId', async (c) => {
    const run = await visibleRun(c, runtime, c.req.param('runId'));
    if (isTerminal(run.status))
      throw new ConflictError(`run ${run.id} is already ${run.status}; only pending or running runs can be cancelled`, {
        runId: run.id,
        status: run.status,
      });
    await deps.launcher.cancel(run.id);
    return c.json(runSummary(await visibleRun(c, runtime, run.id)), 202);
  });

  app.get('/runs/:runId/events', async (c) => {
    const run = await visibleRun(c, runtime, c.req.param('runId'));
    const keyId = principalOf(c)?.keyId;
    const release = keyId === undefined ? () => undefined : deps.limits.streams.acquire(keyId);
    try {
      return await streamRunEvents(c, run.id, { store: runtime.store, logger: deps.logger, ...options, onClose: release });
    } catch (error) {
      release();
      throw error;
    }
  });

  app.post('/runs/:runId/feedback', async (c) => {
    const body = await readJsonBody(c, feedbackBodySchema);
    const run = await visibleRun(c, runtime, c.req.param('runId'));
    const feedback = feedbackFor(
      run,
      body.target_type === 'exploration_step' ? await runtime.store.listSteps(run.id) : [],
      body,
      runtime.now(),
    );
    await runtime.store.upsertFeedback(feedback);
    return c.json(feedback);
  });

  return app;
}
