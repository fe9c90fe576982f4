/** What the fleet bench samples from outside the processes (CPU from /proc, store locks and counters) and its statistics. */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import pg from 'pg';
import { round } from '../bench.js';

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Nearest-rank percentile of `values` (0 < p ≤ 1); null when there are none. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] as number;
}

export function roundOrNull(value: number | null, digits: number): number | null {
  return value === null ? null : round(value, digits);
}

/** mulberry32: a small seeded generator, so a run's kill moments can be replayed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on every Linux the bench runs on). */
export const CLOCK_TICKS = 100;

export interface CpuSample {
  totalTicks: number;
  idleTicks: number;
  byRole: Map<string, number>;
}

/** Machine-wide and per-role CPU ticks from /proc (Linux); undefined elsewhere. */
export function sampleCpu(roles: ReadonlyMap<number, string>): CpuSample | undefined {
  if (!existsSync('/proc/stat')) return undefined;
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const totalTicks = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const idleTicks = (fields[3] ?? 0) + (fields[4] ?? 0);
  const byRole = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pid = Number(entry);
    const role =
      roles.get(pid) ?? (pid === process.pid ? 'bench' : comm === 'postgres' ? 'postgres' : comm === 'redis-server' ? 'redis' : undefined);
    if (role === undefined) continue;
    byRole.set(role, (byRole.get(role) ?? 0) + Number(rest[11]) + Number(rest[12]));
  }
  return { totalTicks, idleTicks, byRole };
}

export interface CpuUse {
  /** Share of all cores busy over the window (every process on the machine). */
  busy_pct: number;
  /** Busy CPU seconds of processes that are not part of the bench (another job on the machine). */
  outside_fleet_s: number;
  /** CPU seconds of each role over the window (processes that exited inside it are not counted). */
  seconds_by_role: Record<string, number>;
}

export function cpuBetween(before: CpuSample | undefined, after: CpuSample | undefined): CpuUse | null {
  if (!before || !after) return null;
  const total = after.totalTicks - before.totalTicks;
  const busy = total - (after.idleTicks - before.idleTicks);
  const seconds: Record<string, number> = {};
  let ours = 0;
  for (const [role, ticks] of [...after.byRole].sort(([left], [right]) => left.localeCompare(right))) {
    const used = ticks - (before.byRole.get(role) ?? 0);
    ours += used;
    seconds[role] = round(used / CLOCK_TICKS, 2);
  }
  return {
    busy_pct: total > 0 ? round((100 * busy) / total, 1) : 0,
    outside_fleet_s: round(Math.max(0, busy - ours) / CLOCK_TICKS, 2),
    seconds_by_role: seconds,
  };
}

export interface LockWaits {
  samples: number;
  /** Mean number of store connections waiting for a lock (the run row's `SELECT … FOR UPDATE`). */
  waiting_mean: number;
  waiting_max: number;
  /** Mean number of connections inside a transaction, neither running a statement nor waiting: the worker holds the row while busy. */
  idle_in_transaction_mean: number;
  active_mean: number;
}

/** Samples pg_stat_activity of the store every 50 ms until `stop()`. */
export function samplePostgresLocks(url: string): { stop(): Promise<LockWaits | null> } {
  const client = new pg.Client({ connectionString: url });
  // a store stopped under it (an interrupted bench) ends the loop through the failing query
  client.on('error', () => undefined);
  let running = true;
  const rows: Array<{ waiting: number; idle: number; active: number }> = [];
  const loop = (async () => {
    await client.connect();
    while (running) {
      const {
        rows: [row],
      } = await client.query<{ waiting: string; idle: string; active: string }>(
        `SELECT count(*) FILTER (WHERE wait_event_type = 'Lock') AS waiting,
                count(*) FILTER (WHERE state = 'idle in transaction') AS idle,
                count(*) FILTER (WHERE state = 'active' AND wait_event_type IS DISTINCT FROM 'Lock') AS active
           FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      );
      if (row) rows.push({ waiting: Number(row.waiting), idle: Number(row.idle), active: Number(row.active) });
      await sleep(50);
    }
  })().then(
    () => false,
    () => true,
  );
  return {
    async stop() {
      running = false;
      const failed = await loop;
      await client.end().catch(() => undefined);
      if (failed || rows.length === 0) return null;
      const mean = (pick: (row: (typeof rows)[number]) => number) => round(rows.reduce((sum, row) => sum + pick(row), 0) / rows.length, 2);
      return {
        samples: rows.length,
        waiting_mean: mean((row) => row.waiting),
        waiting_max: Math.max(...rows.map((row) => row.waiting)),
        idle_in_transaction_mean: mean((row) => row.idle),
        active_mean: mean((row) => row.active),
      };
    },
  };
}

export interface StoreCounters {
  transactions: number;
  rolled_back: number;
  rows_returned: number;
  rows_fetched: number;
  /** Rows written per table: inserted + updated + deleted. */
  writes_by_table: Record<string, number>;
}

export type StoreWork = StoreCounters;

/** The store database's cumulative counters (statistics are flushed about once a second: wait before reading). */
export async function sampleStoreWork(url: string): Promise<StoreCounters | null> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await sleep(1_100);
    await client.query('SELECT pg_stat_clear_snapshot()');
    const database = (
      await client.query<{ commits: string; rollbacks: string; returned: string; fetched: string }>(
        `SELECT xact_commit AS commits, xact_rollback AS rollbacks, tup_returned AS returned, tup_fetched AS fetched
           FROM pg_stat_database WHERE datname = current_database()`,
      )
    ).rows[0];
    const tables = await client.query<{ name: string; writes: string }>(
      'SELECT relname AS name, n_tup_ins + n_tup_upd + n_tup_del AS writes FROM pg_stat_user_tables ORDER BY relname',
    );
    if (!database) return null;
    return {
      transactions: Number(database.commits),
      rolled_back: Number(database.rollbacks),
      rows_returned: Number(database.returned),
      rows_fetched: Number(database.fetched),
      writes_by_table: Object.fromEntries(tables.rows.map((row) => [row.name, Number(row.writes)])),
    };
  } catch {
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export function storeWorkBetween(before: StoreCounters | null, after: StoreCounters | null): StoreWork | null {
  if (!before || !after) return null;
  const writes: Record<string, number> = {};
  for (const [table, count] of Object.entries(after.writes_by_table)) {
    const delta = count - (before.writes_by_table[table] ?? 0);
    if (delta > 0) writes[table] = delta;
  }
  return {
    transactions: after.transactions - before.transactions,
    rolled_back: after.rolled_back - before.rolled_back,
    rows_returned: after.rows_returned - before.rows_returned,
    rows_fetched: after.rows_fetched - before.rows_fetched,
    writes_by_table: writes,
  };
}
