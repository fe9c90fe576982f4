/**
 * `npm run bench [-- name…]`: run every benchmark, or only the named ones. Each prints a table and writes
 * `bench-results/<name>.json`. Benchmarks report numbers; they assert nothing. To add one, export a
 * `Bench` from a module here and add it to `benches` (one import, one entry).
 */
import type { Bench } from './bench.js';
import { compactionBench } from './compaction.js';
import { enginesBench } from './engines.js';
import { fleetBench } from './fleet.js';
import { insightbenchBench } from './insightbench.js';
import { keyFactsBench } from './key-facts.js';
import { llmCostBench } from './llm-cost.js';
import { promptBoundBench } from './prompt-bound.js';
import { scaleBench } from './scale.js';
import { schemaBench } from './schema.js';
import { startupBench } from './startup.js';
import { storeBench } from './store.js';
import { telescopeBench } from './telescope.js';
import { timingsBench } from './timings.js';

const benches: Bench[] = [
  compactionBench,
  enginesBench,
  fleetBench,
  insightbenchBench,
  keyFactsBench,
  llmCostBench,
  promptBoundBench,
  scaleBench,
  schemaBench,
  startupBench,
  storeBench,
  telescopeBench,
  timingsBench,
];

async function main(names: string[]): Promise<number> {
  const unknown = names.filter((name) => !benches.some((bench) => bench.name === name));
  if (unknown.length > 0) {
    process.stderr.write(
      `unknown bench: ${unknown.join(', ')}\navailable:\n${benches.map((bench) => `  ${bench.name} — ${bench.description}`).join('\n')}\n`,
    );
    return 2;
  }
  const selected = names.length === 0 ? benches : benches.filter((bench) => names.includes(bench.name));
  for (const bench of selected) {
    process.stdout.write(`\n== ${bench.name}: ${bench.description}\n`);
    await bench.run();
  }
  return 0;
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
