/**
 * The RunStore contract on MongoDB, against the server MONGO_URL names (none can be installed on this
 * machine, so without it the contract is skipped and says why). Every opened store gets its own fresh
 * database, dropped afterwards. The checks that need no server — the database name a URL names, and
 * that `openRunStore` really reaches the driver — always run.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors/index.js';
import { openRunStore } from '../../../src/store/index.js';
import { createMongoRunStore, mongoDatabaseName } from '../../../src/store/mongo.js';
import type { RunStore } from '../../../src/store/port.js';
import type { Run } from '../../../src/domain/index.js';
import { realisticRun } from '../../support/realistic-run.js';
import { makeRun, runStoreContract } from './contract.js';
import { tempDir } from '../../support/temp-dir.js';

const MONGO_URL = process.env.MONGO_URL || undefined;
const SKIP_REASON = 'MONGO_URL is not set (no MongoDB server can be installed on this machine)';
if (MONGO_URL === undefined) console.log(`skipping the MongoDB run store contract: ${SKIP_REASON}`);

/** One random tag per test run; each opened store adds a counter, so no two tests share a database. */
const RUN_TAG = randomBytes(4).toString('hex');
let databases = 0;
const createdDatabases: string[] = [];
const opened: RunStore[] = [];
const freshDatabase = (label: string): string => {
  const name = `assay_${label}_${RUN_TAG}_${++databases}`;
  createdDatabases.push(name);
  return name;
};

afterAll(async () => {
  await Promise.all(opened.map((store) => store.close()));
  if (MONGO_URL === undefined || createdDatabases.length === 0) return;
  const client = new MongoClient(MONGO_URL);
  try {
    for (const name of createdDatabases) await client.db(name).dropDatabase();
  } finally {
    await client.close();
  }
});

/** The database each open store works on, so that `reopen` opens the same data afresh. */
const databaseOf = new Map<RunStore, string>();

async function openOn(database: string): Promise<RunStore> {
  if (MONGO_URL === undefined) throw new Error(SKIP_REASON);
  const store = await createMongoRunStore({ url: MONGO_URL, database });
  opened.push(store);
  databaseOf.set(store, database);
  return store;
}

const open = (): Promise<RunStore> => openOn(freshDatabase('t'));

/** Closes `store` and opens its database again: nothing the first kept in memory is shared. */
async function reopen(store: RunStore): Promise<RunStore> {
  const database = databaseOf.get(store);
  if (database === undefined) throw new Error('reopen: this store was not opened by this test file');
  await store.close();
  opened.splice(opened.indexOf(store), 1);
  return openOn(database);
}

runStoreContract('MongoDB', open, MONGO_URL === undefined ? { skipReason: SKIP_REASON } : { reopen });

describe.skipIf(MONGO_URL === undefined)('MongoDB: insights in their own documents', () => {
  const insightCount = (run: Run) => run.areas.reduce((sum, area) => sum + area.insights.length, 0);

  it('keeps the run document free of insights and writes only the insight a verification changed', async () => {
    if (MONGO_URL === undefined) return;
    const database = freshDatabase('rows');
    const store = await openOn(database);
    const created = await store.createRun(realisticRun('rows'));
    const client = new MongoClient(MONGO_URL);
    try {
      const db = client.db(database);
      const idsOf = async () =>
        (await db.collection<{ _id: string }>('insights').find({ run_id: 'rows' }).toArray()).map((document) => document._id).sort();
      const before = await idsOf();
      expect(before).toHaveLength(insightCount(created));
      const stored = await db.collection<{ _id: string; areas?: Array<Record<string, unknown>> }>('runs').findOne({ _id: 'rows' });
      expect(stored?.areas?.length).toBeGreaterThan(0);
      expect(stored?.areas?.some((area) => 'insights' in area)).toBe(false);

      const verified = await store.updateRun('rows', (run) => ({
        ...run,
        areas: run.areas.map((area, index) =>
          index === 0
            ? { ...area, insights: area.insights.map((insight, position) => (position === 1 ? { ...insight, confidence: 0.15 } : insight)) }
            : area,
        ),
      }));
      const after = await idsOf();
      expect(after).toHaveLength(before.length);
      expect(after.filter((id) => !before.includes(id))).toHaveLength(1);
      expect(await store.getRun('rows')).toEqual(verified);

      // an area losing insights, and an area removed, take their documents with them
      const shrunk = await store.updateRun('rows', (run) => ({
        ...run,
        areas: run.areas.slice(0, -1).map((area, index) => (index === 0 ? { ...area, insights: area.insights.slice(0, 1) } : area)),
      }));
      expect(await idsOf()).toHaveLength(insightCount(shrunk));
      expect(await store.getRun('rows')).toEqual(shrunk);
    } finally {
      await client.close();
    }
  });

  it('reads a run document that still holds its insights inline, and moves them out on its next update', async () => {
    if (MONGO_URL === undefined) return;
    const database = freshDatabase('legacy');
    const store = await openOn(database);
    const older = realisticRun('older');
    const client = new MongoClient(MONGO_URL);
    try {
      const db = client.db(database);
      // as the adapter stored runs before insights moved out: the whole run in one document
      await db.collection<{ _id: string }>('runs').insertOne({ _id: older.id, ...JSON.parse(JSON.stringify(older)), _version: 1 });
      expect(await store.getRun('older')).toEqual(older);
      expect((await store.listRuns(older.project_id)).map((run) => run.id)).toEqual(['older']);
      const updated = await store.updateRun('older', (run) => ({ ...run, status: 'running' }));
      const stored = await db.collection<{ _id: string; areas?: Array<Record<string, unknown>> }>('runs').findOne({ _id: 'older' });
      expect(stored?.areas?.length).toBeGreaterThan(0);
      expect(stored?.areas?.some((area) => 'insights' in area)).toBe(false);
      expect(await db.collection('insights').countDocuments({ run_id: 'older' })).toBe(insightCount(older));
      expect(await store.getRun('older')).toEqual(updated);
    } finally {
      await client.close();
    }
  });
});

/**
 * The multi-process contract of multi-process.ts, on MongoDB: that helper and its child open PostgreSQL
 * only, so the child here is a small ES module passed to `node -e`, loading the adapter through tsx.
 */
const ADAPTER = fileURLToPath(new URL('../../../src/store/mongo.ts', import.meta.url));
const CHILD_SOURCE = `
const [adapter, url, database, runId, workerText, countText] = process.argv.slice(1);
const { createMongoRunStore } = await import(adapter);
const worker = Number(workerText);
const count = Number(countText);
const store = await createMongoRunStore({ url, database });
try {
  for (let index = 0; index < count; index++) {
    await store.updateRun(runId, (run) => ({
      ...run,
      telemetry: { ...run.telemetry, schema_lookup_calls: run.telemetry.schema_lookup_calls + 1 },
    }));
    await store.upsertStep({
      run_id: runId,
      step: worker * count + index + 1,
      action: 'query',
      timestamp: new Date().toISOString(),
      thinking: '',
      query_purpose: 'w' + worker,
      fix_attempts: 0,
      fixed: false,
    });
  }
} finally {
  await store.close();
}
`;
const PROCESSES = 4;
const INCREMENTS = 50;

function runChild(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD_SOURCE, ADAPTER, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe.skipIf(MONGO_URL === undefined)(`RunStore across ${PROCESSES} OS processes: MongoDB`, () => {
  it(`loses none of ${PROCESSES * INCREMENTS} interleaved updates of one run and stores every step once`, async () => {
    if (MONGO_URL === undefined) return;
    const database = freshDatabase('mp');
    const store = await createMongoRunStore({ url: MONGO_URL, database });
    try {
      await store.createRun(makeRun('shared'));
      const children = await Promise.all(
        Array.from({ length: PROCESSES }, (_, worker) => runChild([MONGO_URL, database, 'shared', String(worker), String(INCREMENTS)])),
      );
      for (const child of children) expect(child.code, child.stderr).toBe(0);
      expect((await store.getRun('shared'))?.telemetry.schema_lookup_calls).toBe(PROCESSES * INCREMENTS);
      const steps = (await store.listSteps('shared')).map((step) => step.step);
      expect(steps).toEqual(Array.from({ length: PROCESSES * INCREMENTS }, (_, index) => index + 1));
    } finally {
      await store.close();
    }
  }, 60_000);
});

/** A port nothing listens on, with a short server-selection timeout: the driver fails fast and for real. */
const UNREACHABLE = 'mongodb://assay:s3cret-pw@127.0.0.1:1/assay_unreachable?serverSelectionTimeoutMS=300&connectTimeoutMS=300';

describe('MongoDB run store without a server', () => {
  it('takes the database from the URL path, else "assay", as the driver reads the path', () => {
    const named = [
      ['mongodb://localhost:27017/runs', 'runs'],
      ['mongodb://user:p%40ss@h1:27017,h2:27018/fleet?replicaSet=rs0&authSource=admin', 'fleet'],
      ['mongodb://localhost/caf%C3%A9', 'café'],
    ] as const;
    for (const [url, database] of named) {
      expect(mongoDatabaseName(url)).toBe(database);
      expect(new MongoClient(url).options.dbName).toBe(database);
    }
    expect(mongoDatabaseName('mongodb+srv://user:pw@cluster0.example.net/prod?retryWrites=true')).toBe('prod');
    for (const url of ['mongodb://localhost:27017', 'mongodb://localhost:27017/', 'mongodb://localhost/?replicaSet=rs0', 'mongodb://h?x=1'])
      expect(mongoDatabaseName(url)).toBe('assay');
  });

  it('refuses a database name MongoDB would refuse, naming MONGO_URL', () => {
    for (const url of [
      'mongodb://localhost/a.b',
      'mongodb://localhost/a%20b',
      'mongodb://localhost/a$b',
      `mongodb://localhost/${'x'.repeat(64)}`,
    ])
      expect(() => mongoDatabaseName(url)).toThrow(/MONGO_URL/);
    expect(() => mongoDatabaseName('postgres://localhost/x')).toThrow(ConfigError);
  });

  it('is what openRunStore opens for mongodb:// (no longer "not built yet"), and a failed open names no password', async () => {
    const dataDir = tempDir('assay-mongo-');
    const error = await openRunStore(UNREACHABLE, { dataDir }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^the MongoDB run store could not be opened: .+\(check MONGO_URL\)$/);
    expect((error as Error).message).not.toMatch(/not built yet/);
    expect((error as Error).message).not.toContain('s3cret-pw');
  });

  it('loads in a child process the way the multi-process contract starts it', async () => {
    const child = await runChild([UNREACHABLE, 'assay_unreachable', 'shared', '0', '1']);
    expect(child.code).not.toBe(0);
    expect(child.stderr).toMatch(/the MongoDB run store could not be opened/);
    expect(child.stderr).not.toContain('s3cret-pw');
  });
});
