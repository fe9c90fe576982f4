/**
 * One rule for a test that finds a server missing. On a developer's machine it skips, with the reason
 * printed. Under `CI` (set by `.ci/run` and by CI services) the servers `.ci/run` installs must be
 * there — redis-server, PostgreSQL, MariaDB, ClickHouse — so a missing one fails the test file instead
 * of letting the suite go green without running the fleet or the stores. Servers that cannot run here
 * (MongoDB, Qdrant, BigQuery, Snowflake) stay optional everywhere, with their printed reason.
 */

/** What `.ci/run` installs, so what CI must never skip. */
export const CI_REQUIRED_SERVERS = ['redis-server', 'PostgreSQL', 'MariaDB', 'ClickHouse'] as const;
export type CiRequiredServer = (typeof CI_REQUIRED_SERVERS)[number];

export class RequiredServerMissingError extends Error {
  readonly code = 'REQUIRED_SERVER_MISSING';
  constructor(
    readonly server: CiRequiredServer,
    reason: string,
  ) {
    super(
      `${server} is required when CI is set, and it is missing: ${reason}. ` +
        `.ci/run installs it; install it, or run without CI to skip these tests`,
    );
    this.name = 'RequiredServerMissingError';
  }
}

/** Whether the tests run in CI: `CI` set to anything but empty, `0` or `false` (as CI services set it). */
export function runsInCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.CI?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== '0' && value !== 'false';
}

/**
 * Call where a test finds `server` missing: returns `reason` for the caller to print and skip with;
 * under CI throws `RequiredServerMissingError`, which fails the test file that called it.
 */
export function skipForMissingServer(server: CiRequiredServer, reason: string, env: NodeJS.ProcessEnv = process.env): string {
  if (runsInCi(env)) throw new RequiredServerMissingError(server, reason);
  return reason;
}
