/** The HTTP API (Hono): projects, discovery runs with live progress, results, reports, feedback, metrics, OpenAPI and the queue dashboard. */
import type { Queue } from 'bullmq';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { routePath } from 'hono/route';
import type { AssayConfig } from '../config/index.js';
import type { DiscoveryDeps } from '../discovery/context.js';
import { TooLargeError } from '../errors/index.js';
import type { RunLauncher } from '../fleet/port.js';
import type { Logger } from '../logging/index.js';
import { boardGuard } from './auth/board-session.js';
import { authMiddleware } from './auth/middleware.js';
import { mountBullBoard, type BullBoardOptions } from './bull-board.js';
import { BULL_BOARD_PATH } from './bull-board-path.js';
import { apiKeyRoutes } from './keys/index.js';
import { RunStartLimiter, StreamLimiter } from './limits.js';
import type { ApiDeps } from './context.js';
import { createErrorHandler, notFoundHandler } from './errors.js';
import { healthRoutes } from './health/index.js';
import { KeyedLock } from '../concurrency/keyed-lock.js';
import { createApiMetrics, type ApiMetrics } from './metrics/index.js';
import { buildOpenApiDocument } from './openapi/index.js';
import { packCatalogRoutes } from './packs/index.js';
import { projectRoutes } from './projects/index.js';
import { runRoutes, type RunRoutesOptions } from './runs/index.js';

export { startApiServer, type RunningServer } from './server.js';
export { createApiMetrics, type ApiMetrics, type QueueDepthSource } from './metrics/index.js';
export { BULL_BOARD_PATH } from './bull-board-path.js';

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
  const store = options.runtime.store;
  const limits = {
    runStarts: new RunStartLimiter(options.config.api.runCreatesPerMinute),
    streams: new StreamLimiter(options.config.api.maxStreamsPerKey),
  };
  const deps: ApiDeps = { runtime: options.runtime, launcher: options.launcher, config: options.config, logger, metrics, limits };
  const locks = new KeyedLock();
  const app = new Hono();

  app.use('*', async (c, next) => {
    const startedAt = performance.now();
    await next();
    // the registered route pattern, not the raw path: run ids must not become label values
    const route = c.res.status === 404 && c.error === undefined ? 'unmatched' : routePath(c, -1);
    metrics.observeHttpRequest({ method: c.req.method, route, status: c.res.status, seconds: (performance.now() - startedAt) / 1000 });
  });
  // every route, the queue dashboard's included: a declared oversize body is refused before it is read
  const maxBodyBytes = options.config.api.maxBodyBytes;
  app.use(
    '*',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () => {
        throw new TooLargeError(`the request body is larger than ${maxBodyBytes} bytes`);
      },
    }),
  );
  app.use(
    '*',
    boardGuard({
      store,
      basePath: BULL_BOARD_PATH,
      sessionSeconds: options.config.api.boardSessionSeconds,
      now: () => options.runtime.now(),
    }),
  );
  app.use(
    '*',
    authMiddleware({
      store,
      publicMetrics: options.config.api.publicMetrics,
      skipPrefix: BULL_BOARD_PATH,
      now: () => options.runtime.now(),
    }),
  );
  app.onError(createErrorHandler(logger));
  app.notFound(notFoundHandler);

  app.route('/', healthRoutes(deps));
  app.route('/api/v1', packCatalogRoutes(deps));
  app.route('/api/v1', projectRoutes(deps, locks));
  app.route('/api/v1', runRoutes(deps, options.events));
  app.route('/api/v1', apiKeyRoutes(deps));

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
