/** What a benchmark is, and the small helpers they share (timing, result files, tables). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface Bench {
  /** The name given on the command line: `npm run bench -- <name>`. */
  name: string;
  description: string;
  run(): Promise<void>;
}

/**
 * `bench-results/` of the directory the bench runs from (npm runs scripts from the project root), or
 * `ASSAY_BENCH_RESULTS_DIR`: a copy of the checkout (the doc test's sandbox) writes into itself.
 */
function resultsDirectory(): string {
  return resolve(process.env.ASSAY_BENCH_RESULTS_DIR ?? join(process.cwd(), 'bench-results'));
}

/** Write `bench-results/<name>.json` and return its path. */
export function writeBenchResult(name: string, result: unknown): string {
  const directory = resultsDirectory();
  mkdirSync(directory, { recursive: true });
  const path = resolve(directory, `${name}.json`);
  writeFileSync(path, `${JSON.stringify(result, null, 2)}\n`);
  return path;
}

/** Warm-up runs before timing, so the JIT has compiled the hot paths of both sides of a comparison. */
const WARM_UP_RUNS = 3;

/** Median wall time in milliseconds of `repetitions` runs, after warm-up runs; also returns the last value. */
export function medianTime<T>(repetitions: number, work: () => T): { ms: number; value: T } {
  let value = work();
  for (let index = 1; index < WARM_UP_RUNS; index += 1) value = work();
  const times: number[] = [];
  for (let index = 0; index < repetitions; index += 1) {
    const started = process.hrtime.bigint();
    value = work();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((left, right) => left - right);
  return { ms: round(times[Math.floor(times.length / 2)] ?? 0, 2), value };
}

export function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
