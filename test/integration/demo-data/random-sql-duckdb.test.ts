import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomMacrosSql, weightedPickSql } from '../../../src/demo/random-sql.js';

let instance: DuckDBInstance;
let connection: DuckDBConnection;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
});
afterAll(() => {
  connection.closeSync();
  instance.closeSync();
});

async function oneRow(sql: string): Promise<Record<string, unknown>> {
  const rows = (await connection.runAndReadAll(sql)).getRowObjectsJS();
  return rows[0] ?? {};
}

describe('when the seeded macros draw 100,000 values in DuckDB', () => {
  it('spreads rnd uniformly over [0, 1)', async () => {
    await connection.run(randomMacrosSql(42));
    const row = await oneRow(`SELECT min(u) AS lo, max(u) AS hi, avg(u) AS mean,
      avg((u < 0.1)::INTEGER) AS first_decile FROM (SELECT rnd('uniformity', i) AS u FROM range(100000) t(i))`);
    expect(row.lo).toBeGreaterThanOrEqual(0);
    expect(row.hi).toBeLessThan(1);
    expect(Number(row.mean)).toBeCloseTo(0.5, 2);
    expect(Number(row.first_decile)).toBeCloseTo(0.1, 2);
  });

  it('follows the weights of a weighted pick', async () => {
    await connection.run(randomMacrosSql(42));
    const pick = weightedPickSql("rnd('weights', i)", [
      ['mobile', 0.5],
      ['desktop', 0.38],
      ['tablet', 0.12],
    ]);
    const row =
      await oneRow(`SELECT avg((d = 'mobile')::INTEGER) AS mobile, avg((d = 'desktop')::INTEGER) AS desktop, avg((d = 'tablet')::INTEGER) AS tablet
      FROM (SELECT ${pick} AS d FROM range(100000) t(i))`);
    expect(Number(row.mobile)).toBeCloseTo(0.5, 2);
    expect(Number(row.desktop)).toBeCloseTo(0.38, 2);
    expect(Number(row.tablet)).toBeCloseTo(0.12, 2);
  });

  it('repeats its draws for the same seed and changes them for another', async () => {
    const digest = async (seed: number): Promise<unknown> => {
      await connection.run(randomMacrosSql(seed));
      return (await oneRow(`SELECT sum(hash(rnd2('repeat', i, i % 7))) AS digest FROM range(100000) t(i)`)).digest;
    };
    const first = await digest(11);
    expect(await digest(11)).toEqual(first);
    expect(await digest(12)).not.toEqual(first);
  });
});
