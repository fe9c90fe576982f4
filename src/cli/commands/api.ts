/**
 * `assay api`: serve the HTTP API. `--runner local` executes runs in this process (with the
 * lease-based restart rule of src/fleet/local/launcher.ts); `--runner bullmq` hands them to the
 * worker fleet through Redis and mounts the queue dashboard at /admin/queues.
 */
import type { Command } from 'commander';
import type { Queue } from 'bullmq';
import type { ApiMetrics, AuthThrottle } from '../../api/index.js';
import { BULL_BOARD_PATH } from '../../api/bull-board-path.js';
import type { Runtime } from '../../composition.js';
import type { AssayConfig } from '../../config/index.js';
import { ValidationError } from '../../errors/index.js';
import type { RunLauncher } from '../../fleet/port.js';
import type { Logger } from '../../logging/index.js';

export const RUNNERS = ['local', 'bullmq'] as const;
export type RunnerKind = (typeof RUNNERS)[number];

export interface ApiCommandOptions {
  port: number;
  host: string;
  runner: RunnerKind;
  maxConcurrentRuns: number;
  /** Bull Board may retry and remove jobs. */
  boardWrite?: boolean;
}

export interface ServedApi {
  url: string;
  runtime: Runtime;
  launcher: RunLauncher;
  /** Stops serving. In local mode runs still in flight keep their leases and are resumed by the next start (see the launcher). */
  stop(): Promise<void>;
}

interface LauncherBinding {
  /** Failed-login counters every API replica shares (the fleet's Redis); undefined: in memory. */
  authThrottle?: AuthThrottle;
  launcher: RunLauncher;
  queues: Queue[];
  /** Runs of this process still executing (local mode). */
  inFlight(): string[];
  /** For exit: leave in-flight work resumable instead of cancelling it. */
  detach(): Promise<void>;
  /** Closes what the binding opened besides the launcher (the throttle's Redis connection). */
  closeExtras(): Promise<void>;
}

async function bindLauncher(
  kind: RunnerKind,
  runtime: Runtime,
  config: AssayConfig,
  logger: Logger,
  maxConcurrentRuns: number,
  onRunSettled: (runId: string) => void,
): Promise<LauncherBinding> {
  if (kind === 'bullmq') {
    // loaded only when selected: the local mode needs neither Redis nor the fleet modules
    const [{ createBullmqLauncher }, { QUEUE_NAMES }, { openProducerConnection, assertRedisReachable }, { createRedisAuthThrottle }] =
      await Promise.all([
        import('../../fleet/bullmq/launcher.js'),
        import('../../fleet/bullmq/queues/index.js'),
        import('../../fleet/bullmq/connection.js'),
        import('../../api/auth/login-throttle.js'),
      ]);
    await assertRedisReachable(config.redisUrl);
    const launcher = createBullmqLauncher({ store: runtime.store, prefix: config.fleet.queuePrefix, redisUrl: config.redisUrl, logger });
    const throttleConnection = openProducerConnection(config.redisUrl);
    throttleConnection.on('error', () => undefined);
    return {
      launcher,
      queues: QUEUE_NAMES.map((name) => launcher.queues.queue(name)),
      authThrottle: createRedisAuthThrottle(throttleConnection, config.fleet.queuePrefix),
      inFlight: () => [],
      detach: () => launcher.close(),
      closeExtras: async () => {
        await throttleConnection.quit().catch(() => throttleConnection.disconnect());
      },
    };
  }
  const { startLocalRunLauncher } = await import('../../fleet/local/launcher.js');
  const launcher = await startLocalRunLauncher({ runtime, clients: runtime.clients, maxConcurrentRuns, onRunSettled });
  return {
    launcher,
    queues: [],
    inFlight: () => launcher.inFlight(),
    detach: async () => launcher.detach(),
    closeExtras: async () => undefined,
  };
}

/** Composes the runtime, the launcher and the API, and listens. Used by the command and by the end-to-end test. */
export async function serveApi(config: AssayConfig, options: ApiCommandOptions, logger: Logger): Promise<ServedApi> {
  const [{ composeRuntime }, { sweepRunCollections }, { createApi, createApiMetrics, startApiServer }] = await Promise.all([
    import('../../composition.js'),
    import('../../discovery/phases/maintenance.js'),
    import('../../api/index.js'),
  ]);
  const runtime = await composeRuntime(config, { logger });
  // a run killed before finalize left its vector collection behind: the API sweeps at start too
  await sweepRunCollections(runtime).catch((error: unknown) => logger.warn({ err: error }, 'start-up sweep of run collections failed'));
  try {
    let metrics: ApiMetrics | undefined;
    const binding = await bindLauncher(options.runner, runtime, config, logger, options.maxConcurrentRuns, (runId) => {
      void runtime.store
        .getRun(runId)
        .then((run) => run && metrics?.recordFinishedRun(run))
        .catch(() => undefined);
    });
    metrics = createApiMetrics({ store: runtime.store, queues: binding.queues, logger });
    const app = createApi({
      runtime,
      launcher: binding.launcher,
      config,
      logger,
      metrics,
      queues: binding.queues,
      bullBoard: { readOnly: !options.boardWrite },
      ...(binding.authThrottle ? { authThrottle: binding.authThrottle } : {}),
    });
    const server = await startApiServer(app, { port: options.port, host: options.host });
    return {
      url: server.url,
      runtime,
      launcher: binding.launcher,
      async stop() {
        await server.close();
        await binding.closeExtras();
        if (binding.inFlight().length > 0) {
          // closing the runtime under live runs would record spurious failures in them; they resume on the next start
          await binding.detach();
          return;
        }
        await binding.launcher.close();
        await runtime.close();
      },
    };
  } catch (error) {
    await runtime.close();
    throw error;
  }
}

function integerOption(name: string, min: number, max: number) {
  return (value: string): number => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < min || number > max)
      throw new ValidationError(`${name} must be a whole number from ${min} to ${max}, got "${value}"`, [
        { path: name, message: 'out of range' },
      ]);
    return number;
  };
}

function runnerOption(value: string): RunnerKind {
  if ((RUNNERS as readonly string[]).includes(value)) return value as RunnerKind;
  throw new ValidationError(`--runner must be one of ${RUNNERS.join(', ')}, got "${value}"`, [
    { path: '--runner', message: 'unknown runner' },
  ]);
}

export function register(program: Command): void {
  program
    .command('api')
    .description('serve the HTTP API (projects, runs with live progress, results, reports, /metrics, /openapi.json)')
    .option('--port <n>', 'port to listen on (0 = any free port)', integerOption('--port', 0, 65_535), 8080)
    .option('--host <address>', 'address to bind (0.0.0.0 to accept remote clients)', '127.0.0.1')
    .option('--runner <kind>', `where runs execute: ${RUNNERS.join(' | ')}`, runnerOption, 'local' as RunnerKind)
    .option(
      '--max-concurrent-runs <n>',
      'local runner: runs executing at once (more wait, pending)',
      integerOption('--max-concurrent-runs', 1, 64),
      2,
    )
    .option('--board-write', `let ${BULL_BOARD_PATH} retry and remove jobs (read-only by default)`)
    .addHelpText(
      'after',
      `\nEvery route but /health and /health/ready needs an API key (Authorization: Bearer <key>). With the embedded store, create the first admin key before starting: assay api-key create --name NAME --scope admin\n\nExamples:\n  assay api\n  assay api --port 9000 --host 0.0.0.0 --runner bullmq`,
    )
    .action(async (options: ApiCommandOptions, command: Command) => {
      const { cliConfig, cliLogger } = await import('../context.js');
      const config = cliConfig(command);
      const logger = cliLogger(config, command, 'server');
      const served = await serveApi(config, options, logger);
      const activeKeys = (await served.runtime.store.listApiKeys()).filter((key) => !key.revoked_at);
      if (activeKeys.length === 0) {
        logger.warn(
          'no API keys exist: every route but health answers 401. Stop the API and run `assay api-key create --name NAME --scope admin` (or use a shared store to create keys while it runs)',
        );
      }
      logger.info(
        { url: served.url, runner: options.runner },
        `assay API listening on ${served.url} (OpenAPI at ${served.url}/openapi.json)`,
      );
      await new Promise<void>((resolve) => {
        const shutdown = (signal: NodeJS.Signals) => {
          logger.info({ signal }, 'shutting down');
          served.stop().then(resolve, (error: unknown) => {
            logger.error({ err: error }, 'shutdown failed');
            resolve();
          });
        };
        process.once('SIGINT', shutdown);
        process.once('SIGTERM', shutdown);
      });
    });
}
