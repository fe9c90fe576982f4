/** The HTTP API (Hono): projects, discovery runs with live progress, results, reports, feedback, metrics, OpenAPI and the queue dashboard. */
import type { Queue } from 'bullmq';
import { Hono } from 'hono';
import { z } from 'zod';
import { bodyLimit } from 'hono/body-limit';
import { routePath } from 'hono/route';
import type { AssayConfig } from '../config/index.js';
import type { DiscoveryDeps } from '../discovery/context.js';
import { TooLargeError } from '../errors/index.js';
import type { RunLauncher } from '../fleet/port.js';
import type { Logger } from '../logging/index.js';
import { boardGuard } from './auth/board-session.js';
import { authMiddleware } from './auth/middleware.js';
import { type AuthThrottle, createMemoryAuthThrottle, type LoginGate } from './auth/login-throttle.js';
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
import { accessTable, type ApiRoute, defineRoute, registerRoutes } from './routing.js';
import { packCatalogRoutes } from './packs/index.js';
import { projectRoutes } from './projects/index.js';
import { runRoutes, type RunRoutesOptions } from './runs/index.js';

export { startApiServer, type RunningServer } from './server.js';
export { createApiMetrics, type ApiMetrics, type QueueDepthSource } from './metrics/index.js';
export { BULL_BOARD_PATH } from './bull-board-path.js';
export { createMemoryAuthThrottle, createRedisAuthThrottle, type AuthThrottle } from './auth/login-throttle.js';

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
  /**
   * Where failed authentication is counted: Redis-backed when the API runs with the fleet, so every
   * replica sees it. @defaultValue in memory, this process only
   */
  authThrottle?: AuthThrottle;
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
  const gate: LoginGate = {
    throttle: options.authThrottle ?? createMemoryAuthThrottle(),
    logger,
    countFailure: (outcome) => metrics.authFailure(outcome),
  };
  const hasQueues = (options.queues?.length ?? 0) > 0;
  let openApi: Record<string, unknown> | undefined;
  // every route, declared once: the router, the scope check and the OpenAPI document all read this list
  const routes: ApiRoute[] = [
    ...healthRoutes(deps),
    ...packCatalogRoutes(deps),
    ...projectRoutes(deps, locks),
    ...runRoutes(deps, options.events),
    ...apiKeyRoutes(deps),
    defineRoute({
      method: 'get',
      path: '/metrics',
      access: 'public_metrics',
      summary: 'Prometheus metrics (text exposition format)',
      tag: 'operations',
      responses: { 200: { description: 'metrics', media: { type: 'text/plain' } } },
      handler: async (c) => {
        await metrics.refresh();
        return c.body(await metrics.render(), 200, { 'Content-Type': metrics.contentType });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/openapi.json',
      access: 'read',
      summary: 'This document',
      tag: 'operations',
      responses: { 200: { description: 'OpenAPI 3.1 document', json: z.record(z.string(), z.unknown()) } },
      handler: (c) => c.json(openApi),
    }),
  ];
  openApi = buildOpenApiDocument(routes, { version: API_VERSION, bullBoard: hasQueues });
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
      gate,
    }),
  );
  app.use(
    '*',
    authMiddleware({
      routes: accessTable(routes),
      store,
      publicMetrics: options.config.api.publicMetrics,
      skipPrefix: BULL_BOARD_PATH,
      gate,
      now: () => options.runtime.now(),
    }),
  );
  app.onError(createErrorHandler(logger));
  app.notFound(notFoundHandler);

  registerRoutes(app, routes);

  if (options.queues && hasQueues) mountBullBoard(app, options.queues, options.bullBoard);
  return app;
}
