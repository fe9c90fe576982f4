/** The HTTP API (Hono): projects, discovery runs with live progress, results, reports, feedback, metrics, OpenAPI and the queue dashboard. */
import type { Queue } from 'bullmq';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { routePath } from 'hono/route';
import type { AssayConfig } from '../config/index.js';
import type { DiscoveryDeps } from '../discovery/context.js';
import { ValidationError } from '../errors/index.js';
import type { RunLauncher } from '../fleet/port.js';
import type { Logger } from '../logging/index.js';
import { mountBullBoard, type BullBoardOptions } from './bull-board.js';
import type { ApiDeps } from './context.js';
import { createErrorHandler, notFoundHandler } from './errors.js';
import { healthRoutes } from './health/index.js';
import { KeyedLock } from '../concurrency/keyed-lock.js';
import { createApiMetrics, type ApiMetrics } from './metrics/index.js';
import { buildOpenApiDocument } from './openapi/index.js';
import { projectRoutes } from './projects/index.js';
import { runRoutes, type RunRoutesOptions } from './runs/index.js';

export { startApiServer, type RunningServer } from './server.js';
export { createApiMetrics, type ApiMetrics, type QueueDepthSource } from './metrics/index.js';
export { BULL_BOARD_PATH } from './bull-board.js';

/** API bodies are small JSON documents; anything bigger is a mistake or an attack. */
export const MAX_BODY_BYTES = 1024 * 1024;
const API_VERSION = '0.1.0';

export interface CreateApiOptions {
  runtime: DiscoveryDeps;
  launcher: RunLauncher;
  config: AssayConfig;
  logger: Logger;
  /** BullMQ queues: their depth is exported on /metrics and Bull Board is mounted at /admin/queues. */
  queues?: readonly Queue[];
  /** @defaultValue read-only */
  bullBoard?: BullBoardOptions;
  /** Pass one to share it with whatever else records runs (the local launcher); created otherwise. */
  metrics?: ApiMetrics;
  /** SSE polling and heartbeat intervals. */
  events?: RunRoutesOptions;
}

export function createApi(options: CreateApiOptions): Hono {
  const logger = options.logger.child({ component: 'api' });
  const metrics = options.metrics ?? createApiMetrics({ store: options.runtime.store, queues: options.queues ?? [], logger });
  const deps: ApiDeps = { runtime: options.runtime, launcher: options.launcher, config: options.config, logger, metrics };
  const locks = new KeyedLock();
  const app = new Hono();

  app.use('*', async (c, next) => {
    const startedAt = performance.now();
    await next();
    // the registered route pattern, not the raw path: run ids must not become label values
    const route = c.res.status === 404 && c.error === undefined ? 'unmatched' : routePath(c, -1);
    metrics.observeHttpRequest({ method: c.req.method, route, status: c.res.status, seconds: (performance.now() - startedAt) / 1000 });
  });
  app.use(
    '/api/*',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new ValidationError(`the request body is larger than ${MAX_BODY_BYTES} bytes`, [{ path: '', message: 'too large' }]);
      },
    }),
  );
  app.onError(createErrorHandler(logger));
  app.notFound(notFoundHandler);

  app.route('/', healthRoutes(deps));
  app.route('/api/v1', projectRoutes(deps, locks));
  app.route('/api/v1', runRoutes(deps, options.events));

  app.get('/metrics', async (c) => {
    await metrics.refresh();
    return c.body(await metrics.render(), 200, { 'Content-Type': metrics.contentType });
  });

  const hasQueues = (options.queues?.length ?? 0) > 0;
  const openApi = buildOpenApiDocument({ version: API_VERSION, bullBoard: hasQueues });
  app.get('/openapi.json', (c) => c.json(openApi));

  if (options.queues && hasQueues) mountBullBoard(app, options.queues, options.bullBoard);
  return app;
}
