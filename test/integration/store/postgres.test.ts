import { randomBytes } from 'node:crypto';
import { afterAll } from 'vitest';
import { createPostgresRunStore } from '../../../src/store/postgres.js';
import type { RunStore } from '../../../src/store/port.js';
import { startTestPostgres } from '../../support/postgres.js';
import { runStoreContract } from './contract.js';
import { multiProcessContract } from './multi-process.js';

const started = await startTestPostgres();
if (!started.available) console.log(`skipping the PostgreSQL run store contract: ${started.reason}`);
const opened: RunStore[] = [];

afterAll(async () => {
  await Promise.all(opened.map((store) => store.close()));
  if (started.available) await started.server.stop();
});

/** Every test gets its own PostgreSQL schema: the same migrations, no shared rows. */
async function open(): Promise<RunStore> {
  if (!started.available) throw new Error(started.reason);
  const store = await createPostgresRunStore({ url: started.server.adminUrl, schema: `t_${randomBytes(4).toString('hex')}` });
  opened.push(store);
  return store;
}

runStoreContract('PostgreSQL', open, started.available ? {} : { skipReason: started.reason });
multiProcessContract('PostgreSQL', () =>
  started.available ? { url: started.server.adminUrl, schema: `mp_${randomBytes(4).toString('hex')}` } : undefined,
);
