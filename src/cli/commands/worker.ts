/** `assay worker`: run a fleet worker process consuming some or all queues until SIGTERM/SIGINT. */
import type { Command } from 'commander';
import { ValidationError } from '../../errors/index.js';

interface WorkerCommandOptions {
  queues?: string;
  concurrency?: string;
}

export function register(program: Command): void {
  program
    .command('worker')
    .description(
      'Run a worker of the BullMQ fleet (REDIS_URL): consumes the chosen queues until SIGTERM/SIGINT, then hands unfinished jobs back.',
    )
    .option(
      '--queues <names>',
      'comma-separated queues to consume (coordinator, explore, index, analyze-area, verify, recommend); default: ASSAY_WORKER_QUEUES or all',
    )
    .option('--concurrency <n>', "jobs in flight per queue in this process; default: ASSAY_WORKER_CONCURRENCY or each queue's own")
    .action(async (options: WorkerCommandOptions, command: Command) => {
      const concurrency = options.concurrency === undefined ? undefined : Number(options.concurrency);
      if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1)) {
        throw new ValidationError(`--concurrency must be a positive integer (got ${JSON.stringify(options.concurrency)})`, [
          { path: '--concurrency', message: 'a positive integer' },
        ]);
      }
      const { cliConfig, cliLogger } = await import('../context.js');
      const config = cliConfig(command);
      const logger = cliLogger(config, command, 'server');
      // loaded on demand: only this command needs BullMQ and the full runtime
      const { runWorkerProcess } = await import('../../fleet/bullmq/workers/main.js');
      await runWorkerProcess(config, {
        logger,
        ...(options.queues === undefined ? {} : { queues: options.queues }),
        ...(concurrency === undefined ? {} : { concurrency }),
      });
    });
}
