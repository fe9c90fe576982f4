/**
 * RunStore on PostgreSQL: the store a fleet of processes and pods shares. Documents are JSONB rows;
 * steps, insights, results, feedback, API keys and the TTL cache have their own tables, so no row grows
 * with the run. A run's insights are rows of `assay_insights` (see insight-rows.ts): its row holds the
 * rest, reads put them back in the same statement, and an update writes only the insights it changed,
 * in the statement that writes the run row. Every update bumps the row's version. `updateRun` is optimistic: it applies the mutation to the
 * version of the run this process knows and writes it in one statement only if the row still has that
 * version; when another process got there first, the statement returns the newer version and the
 * mutation is applied again to it (the mutator may so run more than once: pass a pure function of the
 * run, as for MongoDB). After a few lost races it takes the row lock (`SELECT … FOR UPDATE`) and
 * queues behind the other writers. No update is lost either way. Migrations are applied in code at
 * open, under an advisory lock, so several pods starting at once apply each one exactly once.
 *
 * A run is re-read and re-validated only as far as it changed. The store keeps the runs it read or wrote
 * last, validated, with their row version: a read asks for the document only when the row's version
 * (and `xmin`, which tells a row deleted and made again) differ from the kept ones, an update needs no read at all while they match, and a document
 * another process changed is validated only where it differs from the kept version. An update sends
 * what changed — `jsonb_set` of the changed paths, the new items of an appended array — when the stored
 * document is known to be exactly the kept one, and the whole document otherwise.
 */
import pg from 'pg';
import type { z } from 'zod';
import {
  apiKeyRecordSchema,
  discoveryResultSchema,
  explorationStepSchema,
  feedbackSchema,
  projectSchema,
  runSchema,
  type ApiKeyRecord,
  type DiscoveryResult,
  type ExplorationStep,
  type Feedback,
  type Project,
  type Run,
} from '../domain/index.js';
import { ConfigError, NotFoundError, ValidationError } from '../errors/index.js';
import { KeyedLock } from '../concurrency/keyed-lock.js';
import { assertSafeId } from './ids.js';
import { cloneJson, diffJson, type JsonOperation } from './json-document.js';
import type { CacheEntry, RunStore } from './port.js';
import { RecentMap } from '../common/recent-map.js';
import { parseStoredRun, reviseRun } from './run-revision.js';
import { insightChanges, withInsights, withoutInsights, type InsightChanges, type InsightRow } from './insight-rows.js';

/** Advisory lock key of the migrations (an arbitrary constant: "assay" in ASCII). */
const MIGRATION_LOCK_KEY = 0x6173736179;
/** Expired cache rows are deleted on every Nth write (reads ignore them anyway). */
const CACHE_SWEEP_EVERY_WRITES = 200;
/** Validated runs kept in memory per store. */
const KEPT_RUNS = 64;
/** An update with more changed paths than this sends the whole document. */
const MAX_PARTIAL_OPERATIONS = 32;
/** Version-checked writes of one update before it waits for the row lock instead. */
const OPTIMISTIC_ATTEMPTS = 3;

/** A run as this process last read or wrote it. */
interface KeptRun {
  version: number;
  /** The row version's xmin: a row deleted and inserted again restarts `version`, never repeats this with it. */
  xmin: string;
  run: Run;
  /** The stored document is exactly `run` (so changed paths can be applied to it). */
  exact: boolean;
}

/**
 * The SQL expression that turns the stored `doc` into the new document, applying `operations` (from
 * diffJson of the kept document) in order; parameters are appended to `params`.
 */
export function partialDocumentSql(operations: readonly JsonOperation[], params: unknown[]): string {
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  let expression = 'doc';
  for (const operation of operations) {
    const path = `${param(operation.path.map(String))}::text[]`;
    if (operation.op === 'set') expression = `jsonb_set(${expression}, ${path}, ${param(JSON.stringify(operation.value))}::jsonb, true)`;
    // the append comes before any set of the same array's elements, so the stored array is still the one to extend
    else if (operation.op === 'append')
      expression = `jsonb_set(${expression}, ${path}, (doc #> ${path}) || ${param(JSON.stringify(operation.items))}::jsonb, true)`;
    else expression = `(${expression} #- ${path})`;
  }
  return expression;
}

/** Each entry moves the schema one version up; never edit a released entry, append a new one. */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS {s}.assay_projects (id text PRIMARY KEY, doc jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now());
   CREATE TABLE IF NOT EXISTS {s}.assay_runs (id text PRIMARY KEY, project_id text NOT NULL, created_at text NOT NULL, status text NOT NULL, version integer NOT NULL DEFAULT 1, doc jsonb NOT NULL);
   CREATE INDEX IF NOT EXISTS assay_runs_project_created ON {s}.assay_runs (project_id, created_at DESC, id DESC);
   CREATE INDEX IF NOT EXISTS assay_runs_in_flight ON {s}.assay_runs (status) WHERE status IN ('pending', 'running');
   CREATE TABLE IF NOT EXISTS {s}.assay_steps (run_id text NOT NULL, step integer NOT NULL, doc jsonb NOT NULL, PRIMARY KEY (run_id, step));
   CREATE TABLE IF NOT EXISTS {s}.assay_results (run_id text PRIMARY KEY, project_id text NOT NULL, doc jsonb NOT NULL);
   CREATE TABLE IF NOT EXISTS {s}.assay_feedback (run_id text NOT NULL, target_type text NOT NULL, target_id text NOT NULL, project_id text NOT NULL,
     doc jsonb NOT NULL, written bigserial NOT NULL, PRIMARY KEY (run_id, target_type, target_id));
   CREATE INDEX IF NOT EXISTS assay_feedback_project ON {s}.assay_feedback (project_id, written);
   CREATE TABLE IF NOT EXISTS {s}.assay_api_keys (id text PRIMARY KEY, created_at text NOT NULL, doc jsonb NOT NULL);
   CREATE TABLE IF NOT EXISTS {s}.assay_cache (namespace text NOT NULL, key text NOT NULL, value jsonb NOT NULL, stored_at timestamptz NOT NULL,
     expires_at timestamptz NOT NULL, PRIMARY KEY (namespace, key));
   CREATE INDEX IF NOT EXISTS assay_cache_expiry ON {s}.assay_cache (expires_at);`,
  // insights get rows of their own: a verification then writes one insight, not every area's insights in the run's document
  `CREATE TABLE IF NOT EXISTS {s}.assay_insights (run_id text NOT NULL, area_index integer NOT NULL, insight_index integer NOT NULL,
     doc jsonb NOT NULL, PRIMARY KEY (run_id, area_index, insight_index));
   INSERT INTO {s}.assay_insights (run_id, area_index, insight_index, doc)
     SELECT r.id, a.ord - 1, i.ord - 1, i.value FROM {s}.assay_runs r
     CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(r.doc->'areas') = 'array' THEN r.doc->'areas' ELSE '[]'::jsonb END)
       WITH ORDINALITY AS a(value, ord)
     CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(a.value->'insights') = 'array' THEN a.value->'insights' ELSE '[]'::jsonb END)
       WITH ORDINALITY AS i(value, ord);
   UPDATE {s}.assay_runs r SET version = version + 1, doc = jsonb_set(doc, '{areas}', (
       SELECT coalesce(jsonb_agg(CASE WHEN jsonb_typeof(a.value) = 'object' THEN a.value - 'insights' ELSE a.value END ORDER BY a.ord), '[]'::jsonb)
       FROM jsonb_array_elements(r.doc->'areas') WITH ORDINALITY AS a(value, ord)))
     WHERE jsonb_typeof(doc->'areas') = 'array';`,
];

/** A run row as read: the document, and its insight rows as `[area_index, insight_index, doc]` (null when not asked for). */
interface StoredRunRow {
  version: number;
  xmin: string;
  doc: unknown;
  insights: Array<[number, number, unknown]> | null;
}

function insightRowsFrom(stored: StoredRunRow['insights']): InsightRow[] {
  return (stored ?? []).map(([area, position, doc]) => ({ area, position, doc }));
}

export interface PostgresRunStoreOptions {
  /** `postgres://user:password@host:5432/db` (from ASSAY_STORE; never logged). */
  url: string;
  /** The PostgreSQL schema holding Assay's tables. @defaultValue `public` */
  schema?: string;
  /** Connections in the pool. @defaultValue 10 */
  poolSize?: number;
}

function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  return schema.parse(value) as z.infer<S>;
}

export async function createPostgresRunStore(options: PostgresRunStoreOptions): Promise<RunStore> {
  const schemaName = options.schema ?? 'public';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schemaName))
    throw new ConfigError(`store schema "${schemaName}" must be a lower-case PostgreSQL identifier`);
  const s = `"${schemaName}"`;
  const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 10 });
  // an idle client's connection error must not crash the process; the next query reports it
  pool.on('error', () => undefined);
  let cacheWrites = 0;

  async function migrate(): Promise<void> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${s}.assay_schema_version (version integer NOT NULL)`);
      const current =
        (await client.query<{ version: number }>(`SELECT max(version) AS version FROM ${s}.assay_schema_version`)).rows[0]?.version ?? 0;
      for (let index = current; index < MIGRATIONS.length; index++) {
        await client.query((MIGRATIONS[index] as string).replaceAll('{s}', s));
        await client.query(`INSERT INTO ${s}.assay_schema_version (version) VALUES ($1)`, [index + 1]);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  try {
    await migrate();
  } catch (error) {
    await pool.end();
    throw new ConfigError(`the PostgreSQL run store could not be opened: ${(error as Error).message} (check ASSAY_STORE)`, {
      cause: error,
    });
  }

  async function transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  const kept = new RecentMap<KeptRun>(KEPT_RUNS);
  const runLocks = new KeyedLock();

  /** The SQL of a run row's insight rows, as one jsonb array of `[area_index, insight_index, doc]` (read in the row's statement: one snapshot). */
  const insightsOf = (runAlias: string) =>
    `(SELECT coalesce(jsonb_agg(jsonb_build_array(i.area_index, i.insight_index, i.doc)), '[]'::jsonb) FROM ${s}.assay_insights i WHERE i.run_id = ${runAlias}.id)`;

  /**
   * The run as stored now: the kept one when the row's version and xmin still match it, else the
   * stored document with its insights, validated where it differs from the kept version. `forUpdate` takes the row lock.
   */
  async function readRun(client: pg.Pool | pg.PoolClient, id: string, forUpdate: boolean): Promise<KeptRun | null> {
    const known = kept.get(id);
    const lock = forUpdate ? ' FOR UPDATE OF r' : '';
    const row = known
      ? (
          await client.query<StoredRunRow>(
            `SELECT version, xmin::text AS xmin, CASE WHEN version = $2 AND xmin::text = $3 THEN NULL ELSE doc END AS doc,
               CASE WHEN version = $2 AND xmin::text = $3 THEN NULL ELSE ${insightsOf('r')} END AS insights
             FROM ${s}.assay_runs r WHERE id = $1${lock}`,
            [id, known.version, known.xmin],
          )
        ).rows[0]
      : (
          await client.query<StoredRunRow>(
            `SELECT version, xmin::text AS xmin, doc, ${insightsOf('r')} AS insights FROM ${s}.assay_runs r WHERE id = $1${lock}`,
            [id],
          )
        ).rows[0];
    if (!row) {
      kept.delete(id);
      return null;
    }
    if (known && row.doc === null) return known;
    return keep(id, row, known?.run);
  }

  /** Validates a stored document and its insights (where they differ from `previous`) and keeps them as the run's current version. */
  function keep(id: string, row: StoredRunRow, previous: Run | undefined): KeptRun {
    const report = { exact: false };
    const stray = { strayInsights: false };
    const run = parseStoredRun(withInsights(row.doc, insightRowsFrom(row.insights), stray), previous, report);
    const fresh: KeptRun = { version: row.version, xmin: row.xmin, run, exact: report.exact && !stray.strayInsights };
    kept.set(id, fresh);
    return fresh;
  }

  /** The new document for an UPDATE: the changed paths applied to the stored one when it is exactly the kept run, else the whole of it. */
  function newDocumentSql(current: KeptRun, revised: Run, params: unknown[]): string {
    const stored = withoutInsights(revised);
    const operations = current.exact ? diffJson(withoutInsights(current.run), stored) : [];
    return current.exact && operations.length <= MAX_PARTIAL_OPERATIONS
      ? partialDocumentSql(operations, params)
      : `$${params.push(JSON.stringify(stored))}::jsonb`;
  }

  /**
   * The data-modifying CTEs that write `changes` to the insight rows, each run only when the CTE named
   * `gate` (the run row's own write, returning its `id`) wrote the row: the run and its insights change in
   * one statement or not at all. The writes touch disjoint rows, as one statement requires.
   */
  function insightWritesSql(changes: InsightChanges, gate: string, params: unknown[]): string {
    const param = (value: unknown) => `$${params.push(value)}`;
    const ctes: string[] = [];
    if (changes.upserts.length > 0) {
      const rows = changes.upserts.map((row) => ({ area_index: row.area, insight_index: row.position, doc: row.doc }));
      ctes.push(`insights_written AS (
        INSERT INTO ${s}.assay_insights (run_id, area_index, insight_index, doc)
        SELECT ${gate}.id, w.area_index, w.insight_index, w.doc FROM ${gate}
          CROSS JOIN jsonb_to_recordset(${param(JSON.stringify(rows))}::jsonb) AS w(area_index integer, insight_index integer, doc jsonb)
        ON CONFLICT (run_id, area_index, insight_index) DO UPDATE SET doc = EXCLUDED.doc)`);
    }
    if (changes.counts.length > 0)
      ctes.push(`insights_trimmed AS (
        DELETE FROM ${s}.assay_insights d USING ${gate}, jsonb_to_recordset(${param(JSON.stringify(changes.counts))}::jsonb) AS k(area integer, count integer)
        WHERE d.run_id = ${gate}.id AND d.area_index = k.area AND d.insight_index >= k.count)`);
    if (changes.dropAreasFrom !== undefined)
      ctes.push(`insights_dropped AS (
        DELETE FROM ${s}.assay_insights d USING ${gate} WHERE d.run_id = ${gate}.id AND d.area_index >= ${param(changes.dropAreasFrom)})`);
    return ctes.map((cte) => `, ${cte}`).join('');
  }

  /** The SQL of an update of the run row to `revised` (its new document and, after the `updated` CTE, its insight writes). */
  function revisionSql(current: KeptRun, revised: Run, params: unknown[]): { documentSql: string; insightsSql: string } {
    const documentSql = newDocumentSql(current, revised, params);
    const insightsSql = insightWritesSql(insightChanges(current.exact ? current.run : undefined, revised), 'updated', params);
    return { documentSql, insightsSql };
  }

  /** updateRun's work, one update of a run at a time within this process. */
  async function updateKept(id: string, mutate: (run: Run) => Run): Promise<Run> {
    try {
      // optimistic first: one statement that writes only if the row is still the version this process knows
      let current = kept.get(id) ?? (await readRun(pool, id, false));
      for (let attempt = 0; current && attempt < OPTIMISTIC_ATTEMPTS; attempt++) {
        const revised = reviseRun(current.run, mutate);
        const params: unknown[] = [id, revised.status, current.version, current.xmin];
        const { documentSql, insightsSql } = revisionSql(current, revised, params);
        const result = await pool.query<StoredRunRow & { updated: number | null; updated_xmin: string | null }>(
          `WITH updated AS (
             UPDATE ${s}.assay_runs SET doc = ${documentSql}, status = $2, version = version + 1
             WHERE id = $1 AND version = $3 AND xmin::text = $4 RETURNING id, version, xmin::text AS xmin)${insightsSql}
           SELECT updated.version AS updated, updated.xmin AS updated_xmin, stored.version, stored.xmin::text AS xmin,
             CASE WHEN updated.version IS NULL THEN stored.doc END AS doc,
             CASE WHEN updated.version IS NULL THEN ${insightsOf('stored')} END AS insights
           FROM ${s}.assay_runs stored LEFT JOIN updated ON true WHERE stored.id = $1`,
          params,
        );
        const row = result.rows[0];
        if (!row) break;
        if (row.updated !== null) {
          kept.set(id, { version: row.updated, xmin: row.updated_xmin as string, run: revised, exact: true });
          return cloneJson(revised);
        }
        // another process updated the run since: apply the mutation to its version
        current = keep(id, row, current.run);
      }
      // still racing (or gone): queue behind the other writers on the row lock
      const { next, written } = await transaction(async (client) => {
        const locked = await readRun(client, id, true);
        if (!locked) throw new NotFoundError(`run ${id} does not exist`, { runId: id });
        const revised = reviseRun(locked.run, mutate);
        const params: unknown[] = [id, revised.status];
        const { documentSql, insightsSql } = revisionSql(locked, revised, params);
        const updated = await client.query<{ version: number; xmin: string }>(
          `WITH updated AS (
             UPDATE ${s}.assay_runs SET doc = ${documentSql}, status = $2, version = version + 1 WHERE id = $1
             RETURNING id, version, xmin::text AS xmin)${insightsSql}
           SELECT version, xmin FROM updated`,
          params,
        );
        return { next: revised, written: updated.rows[0] as { version: number; xmin: string } };
      });
      kept.set(id, { ...written, run: next, exact: true });
      return cloneJson(next);
    } catch (error) {
      kept.delete(id);
      throw error;
    }
  }

  /** Runs from rows of `doc` and `insights`, validated whole. */
  const runsFrom = (rows: Array<Pick<StoredRunRow, 'doc' | 'insights'>>): Run[] =>
    rows.map((row) => parseWith(runSchema, withInsights(row.doc, insightRowsFrom(row.insights))));

  const docs = async <S extends z.ZodType>(schema: S, sql: string, params: unknown[]): Promise<z.infer<S>[]> =>
    (await pool.query<{ doc: unknown }>(sql, params)).rows.map((row) => parseWith(schema, row.doc));

  const store: RunStore = {
    async upsertProject(project: Project) {
      assertSafeId('project', project.id);
      const doc = projectSchema.parse(project);
      await pool.query(
        `INSERT INTO ${s}.assay_projects (id, doc, updated_at) VALUES ($1, $2, now()) ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc, updated_at = now()`,
        [doc.id, doc],
      );
    },
    async getProject(id) {
      assertSafeId('project', id);
      return (await docs(projectSchema, `SELECT doc FROM ${s}.assay_projects WHERE id = $1`, [id]))[0] ?? null;
    },
    async listProjects() {
      return docs(projectSchema, `SELECT doc FROM ${s}.assay_projects ORDER BY id`, []);
    },

    async createRun(run: Run) {
      assertSafeId('run', run.id);
      const doc = runSchema.parse(run);
      const params: unknown[] = [doc.id, doc.project_id, doc.created_at, doc.status, JSON.stringify(withoutInsights(doc))];
      // a run made again under an id whose rows were deleted by hand must not pick up the old run's insights: every row is written
      const insightsSql = insightWritesSql(insightChanges(undefined, doc), 'inserted', params);
      const inserted = await pool.query<{ version: number; xmin: string }>(
        `WITH inserted AS (
           INSERT INTO ${s}.assay_runs (id, project_id, created_at, status, doc) VALUES ($1, $2, $3, $4, $5::jsonb)
           ON CONFLICT (id) DO NOTHING RETURNING id, version, xmin::text AS xmin)${insightsSql}
         SELECT version, xmin FROM inserted`,
        params,
      );
      const created = inserted.rows[0];
      if (created) {
        kept.set(doc.id, { version: created.version, xmin: created.xmin, run: doc, exact: true });
        return cloneJson(doc);
      }
      return (await store.getRun(run.id)) as Run;
    },
    async getRun(id) {
      assertSafeId('run', id);
      const found = await readRun(pool, id, false);
      return found ? cloneJson(found.run) : null;
    },
    async updateRun(id, mutate) {
      assertSafeId('run', id);
      // updates of one run from this process queue here, so only other processes can make them race
      return runLocks.run(id, () => updateKept(id, mutate));
    },
    async listRuns(projectId, listOptions) {
      const rows = await pool.query<Pick<StoredRunRow, 'doc' | 'insights'>>(
        `SELECT doc, ${insightsOf('r')} AS insights FROM ${s}.assay_runs r WHERE project_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
        [projectId, listOptions?.limit ?? null],
      );
      return runsFrom(rows.rows);
    },

    async upsertStep(step: ExplorationStep) {
      assertSafeId('run', step.run_id);
      const doc = explorationStepSchema.parse(step);
      await pool.query(
        `INSERT INTO ${s}.assay_steps (run_id, step, doc) VALUES ($1, $2, $3) ON CONFLICT (run_id, step) DO UPDATE SET doc = EXCLUDED.doc`,
        [doc.run_id, doc.step, doc],
      );
    },
    async listSteps(runId) {
      assertSafeId('run', runId);
      return docs(explorationStepSchema, `SELECT doc FROM ${s}.assay_steps WHERE run_id = $1 ORDER BY step`, [runId]);
    },

    async putResult(result: DiscoveryResult) {
      assertSafeId('run', result.run_id);
      const doc = discoveryResultSchema.parse(result);
      await pool.query(
        `INSERT INTO ${s}.assay_results (run_id, project_id, doc) VALUES ($1, $2, $3) ON CONFLICT (run_id) DO UPDATE SET doc = EXCLUDED.doc`,
        [doc.run_id, doc.project_id, doc],
      );
    },
    async getResult(runId) {
      assertSafeId('run', runId);
      return (await docs(discoveryResultSchema, `SELECT doc FROM ${s}.assay_results WHERE run_id = $1`, [runId]))[0] ?? null;
    },
    async listResults(projectId, listOptions) {
      return docs(
        discoveryResultSchema,
        `SELECT r.doc FROM ${s}.assay_results r JOIN ${s}.assay_runs u ON u.id = r.run_id WHERE r.project_id = $1 ORDER BY u.created_at DESC, u.id DESC LIMIT $2`,
        [projectId, listOptions?.limit ?? null],
      );
    },

    async upsertFeedback(feedback: Feedback) {
      assertSafeId('project', feedback.project_id);
      const doc = feedbackSchema.parse(feedback);
      // a changed verdict moves to the end, like a new one
      await pool.query(
        `INSERT INTO ${s}.assay_feedback (run_id, target_type, target_id, project_id, doc) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (run_id, target_type, target_id) DO UPDATE SET doc = EXCLUDED.doc, project_id = EXCLUDED.project_id,
           written = nextval(pg_get_serial_sequence('${s}.assay_feedback', 'written'))`,
        [doc.run_id, doc.target_type, doc.target_id, doc.project_id, doc],
      );
    },
    async listFeedback(projectId) {
      assertSafeId('project', projectId);
      return docs(feedbackSchema, `SELECT doc FROM ${s}.assay_feedback WHERE project_id = $1 ORDER BY written`, [projectId]);
    },

    async putApiKey(key: ApiKeyRecord) {
      assertSafeId('api_key', key.id);
      const doc = apiKeyRecordSchema.parse(key);
      await pool.query(
        `INSERT INTO ${s}.assay_api_keys (id, created_at, doc) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc`,
        [doc.id, doc.created_at, doc],
      );
    },
    async getApiKey(id) {
      if (!/^[A-Za-z0-9_-]{1,80}$/.test(id)) return null;
      return (await docs(apiKeyRecordSchema, `SELECT doc FROM ${s}.assay_api_keys WHERE id = $1`, [id]))[0] ?? null;
    },
    async listApiKeys() {
      return docs(apiKeyRecordSchema, `SELECT doc FROM ${s}.assay_api_keys ORDER BY created_at, id`, []);
    },

    async cacheGet(namespace, key) {
      const row = (
        await pool.query<{ value: unknown; stored_at: Date; expires_at: Date }>(
          `SELECT value, stored_at, expires_at FROM ${s}.assay_cache WHERE namespace = $1 AND key = $2 AND expires_at > now()`,
          [namespace, key],
        )
      ).rows[0];
      return row
        ? ({ value: row.value, stored_at: row.stored_at.toISOString(), expires_at: row.expires_at.toISOString() } satisfies CacheEntry)
        : null;
    },
    async cachePut(namespace, key, value, { ttlMs }) {
      if (value === undefined) throw new ValidationError(`cache ${namespace}/${key}: a value is required`);
      await pool.query(
        `INSERT INTO ${s}.assay_cache (namespace, key, value, stored_at, expires_at) VALUES ($1, $2, $3, now(), now() + $4 * interval '1 millisecond')
         ON CONFLICT (namespace, key) DO UPDATE SET value = EXCLUDED.value, stored_at = EXCLUDED.stored_at, expires_at = EXCLUDED.expires_at`,
        [namespace, key, JSON.stringify(value), ttlMs],
      );
      if (++cacheWrites % CACHE_SWEEP_EVERY_WRITES === 0) await pool.query(`DELETE FROM ${s}.assay_cache WHERE expires_at <= now()`);
    },
    async cacheDelete(namespace, key, deleteOptions) {
      if (key !== undefined) {
        await pool.query(`DELETE FROM ${s}.assay_cache WHERE namespace = $1 AND key = $2`, [namespace, key]);
        return;
      }
      const prefix = (deleteOptions?.prefix ?? '').replace(/[\\%_]/g, (character) => `\\${character}`);
      await pool.query(`DELETE FROM ${s}.assay_cache WHERE namespace = $1 AND key LIKE $2`, [namespace, `${prefix}%`]);
    },

    async close() {
      await pool.end();
    },
  };
  return store;
}
