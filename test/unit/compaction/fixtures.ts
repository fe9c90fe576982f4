/** Deterministic synthetic results shared by the golden tests: a seeded generator, no Math.random. */
import type { Row } from '../../../src/domain/index.js';
import type { ResultColumn } from '../../../src/compaction/compact-result.js';

/** A small linear congruential generator: the same seed always yields the same sequence. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

const DEVICES = ['mobile', 'desktop', 'tablet'] as const;
const COUNTRIES = ['US', 'DE', 'FR', 'BR', 'IN', 'JP'] as const;

/** 2,000 sessions × 10 columns of mixed kinds, like a typical exploration query result. */
export function sessionsResult(rowCount = 2000): { columns: ResultColumn[]; rows: Row[] } {
  const random = seededRandom(42);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
  const columns: ResultColumn[] = [
    { name: 'session_id', type: 'VARCHAR' },
    { name: 'user_id', type: 'BIGINT' },
    { name: 'device', type: 'VARCHAR' },
    { name: 'country', type: 'VARCHAR' },
    { name: 'started_at', type: 'TIMESTAMP' },
    { name: 'duration_s', type: 'DOUBLE' },
    { name: 'orders', type: 'INTEGER' },
    { name: 'revenue', type: 'DECIMAL(12,2)' },
    { name: 'is_new', type: 'BOOLEAN' },
    { name: 'referrer', type: 'VARCHAR' },
  ];
  const rows = Array.from({ length: rowCount }, (_, index): Row => {
    const day = 1 + Math.floor(random() * 28);
    const orders = Math.floor(random() * random() * 8);
    return {
      session_id: `s-${(index * 2654435761) % 4294967296}`,
      user_id: 10_000 + Math.floor(random() * 5000),
      device: random() < 0.61 ? 'mobile' : pick(DEVICES.slice(1)),
      country: pick(COUNTRIES),
      started_at: `2024-03-${String(day).padStart(2, '0')} ${String(Math.floor(random() * 24)).padStart(2, '0')}:00:00`,
      duration_s: Math.round(random() * 360000) / 100,
      orders,
      revenue: orders === 0 ? '0.00' : (orders * (5 + random() * 60)).toFixed(2),
      is_new: random() < 0.3,
      referrer: random() < 0.4 ? null : `https://ref.example.com/campaign/${Math.floor(random() * 400)}`,
    };
  });
  return { columns, rows };
}

/** 30 rows × 250 columns where a third of the columns are mostly null. */
export function wideResult(): { columns: ResultColumn[]; rows: Row[] } {
  const random = seededRandom(7);
  const columns: ResultColumn[] = Array.from({ length: 250 }, (_, index) => ({
    name: `metric_${String(index).padStart(3, '0')}`,
    type: 'DOUBLE',
  }));
  const rows = Array.from(
    { length: 30 },
    (): Row =>
      Object.fromEntries(
        columns.map((column, index) => [column.name, index % 3 === 0 && random() < 0.9 ? null : Math.round(random() * 1000) / 10]),
      ),
  );
  return { columns, rows };
}
