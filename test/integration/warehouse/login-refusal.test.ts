/**
 * A login the server refuses is a setting to fix, not a fault to retry: on a real MariaDB and a real
 * ClickHouse, a wrong password, an unknown user and an unknown database each end in a `ConfigError`
 * naming what to change, with no password in the message.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors/index.js';
import { openWarehouse } from '../../../src/warehouse/index.js';
import { startTestClickhouse } from '../../support/clickhouse.js';
import { startTestMariadb } from '../../support/mariadb.js';

const mariadb = await startTestMariadb();
const clickhouse = await startTestClickhouse();
afterAll(async () => {
  if (mariadb.available) await mariadb.server.stop();
  if (clickhouse.available) await clickhouse.server.stop();
});

function variant(url: string, change: (parsed: URL) => void): string {
  const parsed = new URL(url);
  change(parsed);
  return parsed.toString();
}

async function refusal(url: string): Promise<unknown> {
  return openWarehouse(url).then(
    async (warehouse) => {
      await warehouse.close();
      return undefined;
    },
    (error: unknown) => error,
  );
}

const SECRET = 'not-the-password-4242';

for (const [engine, started] of [
  ['MariaDB', mariadb],
  ['ClickHouse', clickhouse],
] as const) {
  describe.skipIf(!started.available)(`a ${engine} warehouse that refuses the login`, () => {
    const readerUrl = started.available ? started.server.readerUrl : '';

    it.each([
      ['a wrong password', (parsed: URL) => void (parsed.password = SECRET), /password/],
      ['an unknown user', (parsed: URL) => void ((parsed.username = 'nobody_here'), (parsed.password = SECRET)), /user/],
      ['an unknown database', (parsed: URL) => void (parsed.pathname = '/no_such_database'), /database/],
    ])('ends in a ConfigError naming what to fix for %s', async (_, change, fix) => {
      const error = await refusal(variant(readerUrl, change));
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      expect(message).toMatch(/refused the connection/);
      expect(message).toMatch(fix);
      expect(message).not.toContain(SECRET);
    });
  });
}
