import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CI_REQUIRED_SERVERS, RequiredServerMissingError, runsInCi, skipForMissingServer } from '../../support/required-servers.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The Debian package `.ci/run` installs for each server. */
const PACKAGE_SERVER: Record<string, string> = {
  'redis-server': 'redis-server',
  postgresql: 'PostgreSQL',
  'mariadb-server': 'MariaDB',
  'clickhouse-server': 'ClickHouse',
};
const REASON = 'redis-server is not on PATH';

describe('when a test finds a server it needs missing', () => {
  it('skips with the reason outside CI', () => {
    for (const env of [{}, { CI: '' }, { CI: 'false' }, { CI: '0' }, { CI: ' FALSE ' }])
      expect(skipForMissingServer('redis-server', REASON, env), JSON.stringify(env)).toBe(REASON);
  });

  it('fails under CI, naming the server, the reason and what to do', () => {
    for (const env of [{ CI: 'true' }, { CI: '1' }, { CI: 'yes' }]) {
      let thrown: unknown;
      try {
        skipForMissingServer('PostgreSQL', 'no initdb', env);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(env)).toBeInstanceOf(RequiredServerMissingError);
      expect(thrown).toMatchObject({ code: 'REQUIRED_SERVER_MISSING', server: 'PostgreSQL' });
      expect((thrown as Error).message).toMatch(/PostgreSQL is required when CI is set.*no initdb.*\.ci\/run installs it/);
    }
  });

  it('requires in CI exactly what .ci/run installs, and .ci/run sets CI', () => {
    const script = readFileSync(join(REPO_ROOT, '.ci/run'), 'utf8');
    const installed = [...script.matchAll(/need\+=\(([\w-]+)\)/g)].map((match) => PACKAGE_SERVER[match[1] as string] ?? match[1]);
    expect(installed.sort()).toEqual([...CI_REQUIRED_SERVERS].sort());
    expect(script).toMatch(/^export CI=true$/m);
  });

  it('reads CI the way CI services set it', () => {
    expect(runsInCi({ CI: 'true' })).toBe(true);
    expect(runsInCi({ CI: 'false' })).toBe(false);
    expect(runsInCi({})).toBe(false);
  });
});
