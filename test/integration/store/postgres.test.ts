import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { Run } from '../../../src/domain/index.js';
import { MIGRATIONS, createPostgresRunStore } from '../../../src/store/postgres.js';
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

/** Work on a connection of its own, as another process (or an operator) would. */
async function withAdmin<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: started.available ? started.server.adminUrl : '' });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/** Writes a run row as an earlier version of Assay left it: the document exactly as given. */
async function insertStoredRun(
  admin: pg.Client,
  schema: string,
  doc: Pick<Run, 'id' | 'project_id' | 'created_at' | 'status'>,
): Promise<void> {
  await admin.query(`INSERT INTO ${schema}.assay_runs (id, project_id, created_at, status, doc) VALUES ($1, $2, $3, $4, $5)`, [
    doc.id,
    doc.project_id,
    doc.created_at,
    doc.status,
    doc,
  ]);
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
    await withAdmin((admin) => admin.query(`DELETE FROM "${schemas.get(first) as string}".assay_runs WHERE id = 'again'`));
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
    await withAdmin(async (admin) => {
      await insertStoredRun(admin, schema, older);
      const updated = await store.updateRun('older', (run) => ({ ...run, telemetry: { ...run.telemetry, schema_lookup_calls: 3 } }));
      const stored = (await admin.query<{ doc: Run }>(`SELECT doc FROM ${schema}.assay_runs WHERE id = 'older'`)).rows[0]?.doc;
      expect(stored).toEqual(JSON.parse(JSON.stringify(updated)));
      expect(stored?.recoveries).toBe(0);
    });
  });
});
describe.skipIf(!started.available)('insights in their own rows', () => {
  it('keeps the run row free of insights and rewrites only the insight a verification changed', async () => {
    const store = await open();
    const schema = `"${schemas.get(store) as string}"`;
    const created = await store.createRun(realisticRun('rows'));
    const insightCount = created.areas.reduce((sum, area) => sum + area.insights.length, 0);
    const rowVersions = (admin: pg.Client) =>
      admin.query<{ key: string; xmin: string }>(
        `SELECT area_index || '/' || insight_index AS key, xmin::text AS xmin FROM ${schema}.assay_insights WHERE run_id = 'rows' ORDER BY 1`,
      );
    const before = await withAdmin(async (admin) => {
      const doc = (await admin.query<{ doc: Run }>(`SELECT doc FROM ${schema}.assay_runs WHERE id = 'rows'`)).rows[0]?.doc;
      expect(doc?.areas.every((area) => !('insights' in area))).toBe(true);
      return (await rowVersions(admin)).rows;
    });
    expect(before).toHaveLength(insightCount);

    const updated = await store.updateRun('rows', (run) => ({
      ...run,
      areas: run.areas.map((area, index) =>
        index === 1
          ? { ...area, insights: area.insights.map((insight, position) => (position === 2 ? { ...insight, confidence: 0.15 } : insight)) }
          : area,
      ),
      telemetry: { ...run.telemetry, phase_durations_ms: { ...run.telemetry.phase_durations_ms, validation: 1234 } },
    }));
    const after = await withAdmin(async (admin) => (await rowVersions(admin)).rows);
    const rewritten = after.filter((row, index) => row.xmin !== before[index]?.xmin).map((row) => row.key);
    expect(rewritten).toEqual(['1/2']);
    const fresh = await openSchema(schemas.get(store) as string);
    expect(await fresh.getRun('rows')).toEqual(updated);
    expect((await fresh.listRuns(updated.project_id))[0]).toEqual(updated);

    // an area losing insights, and an area removed, take their rows with them
    const shrunk = await store.updateRun('rows', (run) => ({
      ...run,
      areas: run.areas.slice(0, -1).map((area, index) => (index === 0 ? { ...area, insights: area.insights.slice(0, 1) } : area)),
    }));
    expect(await fresh.getRun('rows')).toEqual(shrunk);
    const rows = await withAdmin(async (admin) => (await rowVersions(admin)).rows.length);
    expect(rows).toBe(shrunk.areas.reduce((sum, area) => sum + area.insights.length, 0));
  });

  it('moves the insights of runs stored by an earlier version out of their documents when it opens', async () => {
    if (!started.available) return;
    const schemaName = `m_${randomBytes(4).toString('hex')}`;
    const schema = `"${schemaName}"`;
    const older = realisticRun('older-run');
    await withAdmin(async (admin) => {
      await admin.query(`CREATE SCHEMA ${schema}`);
      await admin.query(`CREATE TABLE ${schema}.assay_schema_version (version integer NOT NULL)`);
      await admin.query((MIGRATIONS[0] as string).replaceAll('{s}', schema));
      await admin.query(`INSERT INTO ${schema}.assay_schema_version (version) VALUES (1)`);
      await insertStoredRun(admin, schema, older);
    });
    const store = await openSchema(schemaName);
    expect(await store.getRun('older-run')).toEqual(older);
    await withAdmin(async (admin) => {
      const doc = (await admin.query<{ doc: Run }>(`SELECT doc FROM ${schema}.assay_runs`)).rows[0]?.doc;
      expect(doc?.areas.some((area) => 'insights' in area)).toBe(false);
      const count = (await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.assay_insights`)).rows[0]?.n;
      expect(count).toBe(older.areas.reduce((sum, area) => sum + area.insights.length, 0));
    });
  });
});

multiProcessContract('PostgreSQL', () =>
  started.available ? { url: started.server.adminUrl, schema: `mp_${randomBytes(4).toString('hex')}` } : undefined,
);
