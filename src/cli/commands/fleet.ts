/** `assay fleet up|env|down`: redis-server and a throwaway PostgreSQL for a fleet on this machine. */
import type { Command } from 'commander';
import { ValidationError } from '../../errors/index.js';

function portOption(flag: string) {
  return (value: string): number => {
    const port = Number(value);
    if (!Number.isInteger(port) || port < 0 || port > 65_535)
      throw new ValidationError(`${flag} must be a port number from 0 to 65535, got "${value}"`, [{ path: flag, message: '0-65535' }]);
    return port;
  };
}

export function register(program: Command): void {
  const fleet = program
    .command('fleet')
    .description('start and stop the servers a local fleet needs: redis-server (queues) and a throwaway PostgreSQL (shared run store)')
    .addHelpText(
      'after',
      '\nBoth come from the OS packages (Debian/Ubuntu: apt-get install -y redis-server postgresql), run in the background on\nfree ports (6379 and 5432 when those are free), and keep their data under <data dir>/fleet/ until `assay fleet down`.\n\nExamples:\n  assay fleet up\n  eval "$(assay fleet env)"      # ASSAY_STORE and REDIS_URL for this shell\n  assay fleet down',
    );

  fleet
    .command('up')
    .description('start redis-server and PostgreSQL (already running: nothing to do) and print their settings')
    .option('--redis-port <n>', 'port for redis-server (0: any free port; default 6379 when free)', portOption('--redis-port'))
    .option('--postgres-port <n>', 'port for PostgreSQL (0: any free port; default 5432 when free)', portOption('--postgres-port'))
    .action(async (options: { redisPort?: number; postgresPort?: number }, command: Command) => {
      const [{ cliConfig }, { fleetUp }] = await Promise.all([import('../context.js'), import('../fleet-services.js')]);
      const config = cliConfig(command);
      const { settings, started } = await fleetUp(config.dataDir, { redis: options.redisPort, postgres: options.postgresPort });
      process.stdout.write(
        `${started.length > 0 ? `started ${started.join(' and ')}` : 'already running'}:\n  queues (Redis)      ${settings.redisUrl}\n  run store (Postgres) ${settings.store}\n\nUse them in this shell:  eval "$(npx assay fleet env)"\nStop them, delete their data:  npx assay fleet down\n`,
      );
    });

  fleet
    .command('env')
    .description('print the settings of the running servers as shell exports: eval "$(assay fleet env)"')
    .action(async (_options: unknown, command: Command) => {
      const [{ cliConfig }, { fleetEnv, exportLines }] = await Promise.all([import('../context.js'), import('../fleet-services.js')]);
      process.stdout.write(exportLines(await fleetEnv(cliConfig(command).dataDir)));
    });

  fleet
    .command('down')
    .description('stop redis-server and PostgreSQL and delete their data')
    .action(async (_options: unknown, command: Command) => {
      const [{ cliConfig }, { fleetDown }] = await Promise.all([import('../context.js'), import('../fleet-services.js')]);
      const stopped = await fleetDown(cliConfig(command).dataDir);
      process.stdout.write(stopped.length > 0 ? `stopped ${stopped.join(' and ')}; their data is deleted\n` : 'nothing was running\n');
    });
}
