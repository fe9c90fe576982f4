import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { Run } from '../../../src/domain/index.js';
import { createPostgresRunStore } from '../../../src/store/postgres.js';
import type { RunStore } from '../../../src/store/port.js';
import { startTestPostgres } from '../../support/postgres.js';
import { realisticLlmCall, realisticRun } from '../../support/realistic-run.js';
import { makeRun, runStoreContract } from './contract.js';
import { multiProcessContract } from './multi-process.js';

const started = await startTestPostgres();
if (!started.available) console.log(`skipping the PostgreSQL run store contract: ${started.reason}`);
const opened: RunStore[] = [];

afterAll(async () => {
  await Promise.all(opened.map((store) => store.close()));
  if (started.available) await started.server.stop();
});

const schemas = new WeakMap<RunStore, string>();

async function openSchema(schema: string): Promise<RunStore> {
  if (!started.available) throw new Error(started.reason);
  const store = await createPostgresRunStore({ url: started.server.adminUrl, schema });
  schemas.set(store, schema);
  opened.push(store);
  return store;
}

/** Every test gets its own PostgreSQL schema: the same migrations, no shared rows. */
const open = () => openSchema(`t_${randomBytes(4).toString('hex')}`);

runStoreContract(
  'PostgreSQL',
  open,
  started.available
    ? {
        // a second store on the same schema: its own connections, nothing kept in memory
        reopen: (store) => openSchema(schemas.get(store) as string),
      }
    : { skipReason: started.reason },
);

describe.skipIf(!started.available)('the PostgreSQL run store kept in memory', () => {
  it('sees updates another process made, and applies its own on top of them', async () => {
    const first = await open();
    const second = await openSchema(schemas.get(first) as string);
    await first.createRun(realisticRun('shared'));
    await first.getRun('shared');
    await second.updateRun('shared', (run) => ({ ...run, phase_detail: 'from the second', progress: 80 }));
    expect((await first.getRun('shared'))?.phase_detail).toBe('from the second');
    const updated = await first.updateRun('shared', (run) => ({
      ...run,
      telemetry: { ...run.telemetry, llm_calls: [...run.telemetry.llm_calls, realisticLlmCall(7)] },
    }));
    expect(updated.progress).toBe(80);
    expect(await second.getRun('shared')).toEqual(updated);
  });

  it('notices a run deleted and created again under the same id (its version starts over)', async () => {
    const first = await open();
    const second = await openSchema(schemas.get(first) as string);
    await first.createRun(makeRun('again'));
    expect((await first.getRun('again'))?.phase_detail).toBe('');
    const admin = new pg.Client({ connectionString: started.available ? started.server.adminUrl : '' });
    await admin.connect();
    try {
      await admin.query(`DELETE FROM "${schemas.get(first) as string}".assay_runs WHERE id = 'again'`);
    } finally {
      await admin.end();
    }
    await second.createRun({ ...makeRun('again'), phase_detail: 'the second one' });
    expect((await first.getRun('again'))?.phase_detail).toBe('the second one');
    const updated = await first.updateRun('again', (run) => ({ ...run, progress: 5 }));
    expect(updated.phase_detail).toBe('the second one');
    expect(await second.getRun('again')).toEqual(updated);
  });

  it('reads a document written without the defaults (an older version wrote it) and rewrites it whole', async () => {
    const store = await open();
    const schema = `"${schemas.get(store) as string}"`;
    const { telemetry: _telemetry, recoveries: _recoveries, ...older } = makeRun('older');
    const admin = new pg.Client({ connectionString: started.available ? started.server.adminUrl : '' });
    await admin.connect();
    try {
      await admin.query(`INSERT INTO ${schema}.assay_runs (id, project_id, created_at, status, doc) VALUES ($1, $2, $3, $4, $5)`, [
        older.id,
        older.project_id,
        older.created_at,
        older.status,
        older,
      ]);
      const updated = await store.updateRun('older', (run) => ({ ...run, telemetry: { ...run.telemetry, schema_lookup_calls: 3 } }));
      const stored = (await admin.query<{ doc: Run }>(`SELECT doc FROM ${schema}.assay_runs WHERE id = 'older'`)).rows[0]?.doc;
      expect(stored).toEqual(JSON.parse(JSON.stringify(updated)));
      expect(stored?.recoveries).toBe(0);
    } finally {
      await admin.end();
    }
  });
});
multiProcessContract('PostgreSQL', () =>
  started.available ? { url: started.server.adminUrl, schema: `mp_${randomBytes(4).toString('hex')}` } : undefined,
);
