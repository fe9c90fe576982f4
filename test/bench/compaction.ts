/**
 * `npm run bench -- compaction`: digest size and time against the raw JSON of the same rows, per shape
 * of result, plus the memory a streamed one-million-row digest needs. Writes bench-results/compaction.json.
 *
 * Sizes: `json_bytes` is JSON.stringify of the rows, `digest_bytes` the stored CompactResult as JSON,
 * `rendered_bytes` the step as the analysis prompt renders it (empty purpose and SQL), which is what the
 * byte budget bounds; `ratio` is json_bytes / rendered_bytes.
 *
 * Time: a digest/JSON.stringify ratio measured once per shape swings with JIT state, garbage collection
 * and the machine's other load. So each shape is first run until both sides are warm, then timed in
 * interleaved pairs (digest then stringify, and stringify then digest on alternate pairs, each after a
 * minor collection), and the reported ratio is the median of the per-pair ratios, with its quartiles.
 * Both sides see the same row objects every time (see `asDelivered`); V8 caches a string's hash in the
 * string, so repeated digests of one table hash its strings once (a production digest sees each string
 * once, and hashes it once, too).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { compactResult, type ResultColumn } from '../../src/compaction/compact-result.js';
import { COMPLETE_DIGEST_BUDGET_BYTES, DIGEST_BUDGET_BYTES, renderStepDigest } from '../../src/compaction/render.js';
import { explorationStepSchema, type Cell, type CompactResult, type Row } from '../../src/domain/index.js';
import { renderTable } from '../../src/cli/context.js';
import { flightsResult, seededRandom, sessionsResult } from '../unit/compaction/fixtures.js';
import { round, writeBenchResult, type Bench } from './bench.js';

interface Table {
  columns: ResultColumn[];
  rows: Row[];
}

interface CaseResult {
  case: string;
  rows: number;
  cols: number;
  json_bytes: number;
  /** The stored CompactResult as JSON. */
  digest_bytes: number;
  /** The step as the analysis prompt renders it (empty purpose and SQL): what the budget bounds. */
  rendered_bytes: number;
  budget_bytes: number;
  /** json_bytes / rendered_bytes. */
  ratio: number;
  /** Median over the timed pairs. */
  digest_ms: number;
  stringify_ms: number;
  /** Median of the per-pair digest_ms / stringify_ms: the target is ≤ 1. */
  time_ratio: number;
  /** Quartiles of the per-pair ratios: how much a single measurement could have swung. */
  time_ratio_p25: number;
  time_ratio_p75: number;
  pairs: number;
  /** 1M×5 only: the same digest over streamed rows (see StreamedMemory). */
  streamed?: StreamedMemory;
}

type ColumnMaker = { type: string; value: (row: number, random: () => number) => Cell };

const CATEGORIES = ['paid', 'refunded', 'pending', 'cancelled', 'shipped', 'returned', 'disputed', 'draft'];
/** A repeating palette of realistic column kinds, so any width mixes numbers, strings, times and flags. */
const COLUMN_MAKERS: ColumnMaker[] = [
  { type: 'BIGINT', value: (row) => 1_000_000 + row },
  { type: 'VARCHAR', value: (_, random) => CATEGORIES[Math.floor(random() * CATEGORIES.length)] ?? null },
  { type: 'DOUBLE', value: (_, random) => Math.round(random() * 100_000) / 100 },
  {
    type: 'TIMESTAMP',
    value: (row) =>
      `2024-${String(1 + (row % 12)).padStart(2, '0')}-${String(1 + (row % 28)).padStart(2, '0')} ${String(row % 24).padStart(2, '0')}:30:00`,
  },
  { type: 'BOOLEAN', value: (_, random) => random() < 0.3 },
  { type: 'INTEGER', value: (_, random) => (random() < 0.1 ? null : Math.floor(random() * random() * 20)) },
  { type: 'VARCHAR', value: (row) => `customer-${(row * 2654435761) % 1_000_003}` },
  {
    type: 'VARCHAR',
    value: (_, random) => (random() < 0.5 ? null : `free text comment number ${Math.floor(random() * 1e6)} about the order`),
  },
];

function* generateRows(rowCount: number, columnCount: number, seed: number): Generator<Row> {
  const random = seededRandom(seed);
  for (let row = 0; row < rowCount; row += 1) {
    const cells: Row = {};
    for (let column = 0; column < columnCount; column += 1) {
      cells[`c${column}`] = (COLUMN_MAKERS[column % COLUMN_MAKERS.length] as ColumnMaker).value(row, random);
    }
    yield cells;
  }
}

function generatedColumns(columnCount: number): ResultColumn[] {
  return Array.from({ length: columnCount }, (_, column) => ({
    name: `c${column}`,
    type: (COLUMN_MAKERS[column % COLUMN_MAKERS.length] as ColumnMaker).type,
  }));
}

function generatedTable(rowCount: number, columnCount: number, seed = 1): Table {
  return { columns: generatedColumns(columnCount), rows: [...generateRows(rowCount, columnCount, seed)] };
}

function constantTable(rowCount: number, columnCount: number, value: (column: number) => Cell): Table {
  const columns = Array.from({ length: columnCount }, (_, column) => ({ name: `c${column}` }));
  const rows = Array.from(
    { length: rowCount },
    () => Object.fromEntries(columns.map((column, index) => [column.name, value(index)])) as Row,
  );
  return { columns, rows };
}

function highCardinalityTable(rowCount: number): Table {
  const random = seededRandom(99);
  const hex = (): string =>
    Math.floor(random() * 0xffffffff)
      .toString(16)
      .padStart(8, '0');
  const rows = Array.from(
    { length: rowCount },
    (_, index): Row => ({
      uuid: `${hex()}-${hex().slice(0, 4)}-4${hex().slice(0, 3)}-a${hex().slice(0, 3)}-${hex()}${hex().slice(0, 4)}`,
      email: `person${index}.${hex()}@example.com`,
      account_id: 7_000_000_000 + index * 13,
    }),
  );
  return {
    columns: [
      { name: 'uuid', type: 'UUID' },
      { name: 'email', type: 'VARCHAR' },
      { name: 'account_id', type: 'BIGINT' },
    ],
    rows,
  };
}

/** How long each shape is timed: enough pairs for a stable median, bounded for the million-row shapes. */
interface Timing {
  minPairs: number;
  maxPairs: number;
  /** Stop adding pairs (past minPairs) once the timed pairs took this long. */
  targetMs: number;
}

const SMALL: Timing = { minPairs: 31, maxPairs: 301, targetMs: 3000 };
const LARGE: Timing = { minPairs: 5, maxPairs: 41, targetMs: 6000 };
const HUGE: Timing = { minPairs: 3, maxPairs: 5, targetMs: 4000 };
/** Warm-up: at least this many runs of each side, and at least this long, before any timing. */
const WARM_UP_RUNS = 5;
const WARM_UP_MS = 500;

function elapsedMs(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** Wall time of one run after a scavenge; the result is dropped at once (see `timePairs`). */
function timed(work: () => unknown): number {
  collectYoungGarbage();
  const started = process.hrtime.bigint();
  work();
  return elapsedMs(started);
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * q))] ?? 0;
}

function timePairs(
  table: Table,
  timing: Timing,
): { digest: CompactResult; json: string } & Pick<
  CaseResult,
  'digest_ms' | 'stringify_ms' | 'time_ratio' | 'time_ratio_p25' | 'time_ratio_p75' | 'pairs'
> {
  const digestOnce = (): CompactResult => compactResult(table.columns, table.rows);
  const stringifyOnce = (): string => JSON.stringify(table.rows);
  // Results are kept from the first runs only: holding each run's 0.4–80 MB string until the next would
  // grow the old generation, and the incremental marking that follows is paid by whichever side
  // allocates next (mostly the digest, which makes many small allocations).
  const digest = digestOnce();
  const json = stringifyOnce();
  const warmStarted = process.hrtime.bigint();
  for (let run = 1; run < WARM_UP_RUNS || (elapsedMs(warmStarted) < WARM_UP_MS && run < 50); run += 1) {
    digestOnce();
    stringifyOnce();
  }
  const digestTimes: number[] = [];
  const stringifyTimes: number[] = [];
  const ratios: number[] = [];
  const started = process.hrtime.bigint();
  for (let pair = 0; pair < timing.maxPairs && (pair < timing.minPairs || elapsedMs(started) < timing.targetMs); pair += 1) {
    // Alternate which side goes first, so neither always runs right after the other's garbage.
    const digestFirst = pair % 2 === 0;
    const first = timed(digestFirst ? digestOnce : stringifyOnce);
    const second = timed(digestFirst ? stringifyOnce : digestOnce);
    const digestMs = digestFirst ? first : second;
    const stringifyMs = digestFirst ? second : first;
    digestTimes.push(digestMs);
    stringifyTimes.push(stringifyMs);
    ratios.push(digestMs / stringifyMs);
  }
  const sort = (values: number[]): number[] => [...values].sort((left, right) => left - right);
  const sortedRatios = sort(ratios);
  return {
    digest,
    json,
    digest_ms: round(quantile(sort(digestTimes), 0.5), 3),
    stringify_ms: round(quantile(sort(stringifyTimes), 0.5), 3),
    time_ratio: round(quantile(sortedRatios, 0.5), 2),
    time_ratio_p25: round(quantile(sortedRatios, 0.25), 2),
    time_ratio_p75: round(quantile(sortedRatios, 0.75), 2),
    pairs: ratios.length,
  };
}

/**
 * The rows as a driver or an API hands them over. The generators build strings by concatenation, which
 * V8 keeps as ropes that neither a warehouse result nor a parsed request would contain; a JSON round
 * trip gives flat strings and rows of one shape, as the engine sees them.
 */
function asDelivered(table: Table): Table {
  return { columns: table.columns, rows: JSON.parse(JSON.stringify(table.rows)) as Row[] };
}

function measureCase(name: string, generated: Table, timing: Timing): CaseResult {
  const table = asDelivered(generated);
  const { digest, json, ...times } = timePairs(table, timing);
  const jsonBytes = Buffer.byteLength(json);
  const step = explorationStepSchema.parse({
    run_id: 'bench',
    step: 1,
    action: 'query',
    timestamp: '2024-01-01T00:00:00Z',
    query_purpose: '',
    query: '',
    compact: digest,
  });
  const renderedBytes = Buffer.byteLength(renderStepDigest(step));
  return {
    case: name,
    rows: table.rows.length,
    cols: table.columns.length,
    json_bytes: jsonBytes,
    digest_bytes: Buffer.byteLength(JSON.stringify(digest)),
    rendered_bytes: renderedBytes,
    budget_bytes: digest.all_rows === undefined ? DIGEST_BUDGET_BYTES : COMPLETE_DIGEST_BUDGET_BYTES,
    ratio: round(jsonBytes / renderedBytes, 1),
    ...times,
  };
}

type Collector = (options?: { type: 'major' | 'minor' }) => void;
let collector: Collector | undefined;

/** `gc()` without a command-line flag, so readings start from a collected heap. */
function garbageCollector(): Collector {
  if (collector === undefined) {
    setFlagsFromString('--expose-gc');
    collector = runInNewContext('gc') as Collector;
  }
  return collector;
}

function collectGarbage(): void {
  garbageCollector()();
}

/** A scavenge only: cheap even with a million rows on the heap, and the next timed run starts with an empty young generation. */
function collectYoungGarbage(): void {
  garbageCollector()({ type: 'minor' });
}

interface StreamedMemory {
  rows: number;
  cols: number;
  digest_ms: number;
  /** Growth of the process's peak RSS while the digest ran (rows generated on the fly, never held). */
  peak_rss_delta_mb: number;
  /** Highest heap in use during the digest, above the heap before it (sampled every 10,000 rows; includes short-lived rows). */
  peak_heap_delta_mb: number;
  /** Heap still held after the digest and a collection: what the digest itself keeps. */
  retained_heap_delta_mb: number;
}

/** One million rows streamed through the digest: memory stays flat because nothing grows with the row count. */
function measureStreamedMemory(rowCount: number, columnCount: number): StreamedMemory {
  collectGarbage();
  const heapBefore = process.memoryUsage().heapUsed;
  const rssPeakBefore = process.resourceUsage().maxRSS * 1024;
  let peakHeap = heapBefore;
  function* sampled(): Generator<Row> {
    let index = 0;
    for (const row of generateRows(rowCount, columnCount, 3)) {
      if (index % 10_000 === 0) peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
      index += 1;
      yield row;
    }
  }
  const started = process.hrtime.bigint();
  const digest = compactResult(generatedColumns(columnCount), sampled());
  const digestMs = Number(process.hrtime.bigint() - started) / 1e6;
  const rssPeakAfter = process.resourceUsage().maxRSS * 1024;
  collectGarbage();
  const retained = process.memoryUsage().heapUsed - heapBefore;
  const megabytes = (bytes: number): number => round(bytes / 1024 / 1024, 1);
  if (digest.row_count !== rowCount) throw new Error(`streamed digest saw ${digest.row_count} rows, expected ${rowCount}`);
  return {
    rows: rowCount,
    cols: columnCount,
    digest_ms: round(digestMs, 1),
    peak_rss_delta_mb: megabytes(rssPeakAfter - rssPeakBefore),
    peak_heap_delta_mb: megabytes(peakHeap - heapBefore),
    retained_heap_delta_mb: megabytes(retained),
  };
}

export const compactionBench: Bench = {
  name: 'compaction',
  description: 'CompactResult size and time vs JSON.stringify of the same rows; bounded memory at 1M rows',
  async run() {
    const cases: CaseResult[] = [];
    const measure = (name: string, table: Table, timing: Timing): CaseResult => {
      const result = measureCase(name, table, timing);
      cases.push(result);
      process.stdout.write(
        `  ${name}: ${result.rendered_bytes} B rendered; digest ${result.digest_ms} ms, stringify ${result.stringify_ms} ms, ratio ${result.time_ratio} (${result.pairs} pairs)\n`,
      );
      return result;
    };
    // Before anything large is allocated, so the process's RSS high-water mark is still low.
    const streamed = measureStreamedMemory(1_000_000, 5);
    measure('mixed 2k×10', sessionsResult(2000), SMALL);
    measure('wide 2k×200', generatedTable(2000, 200), SMALL);
    measure('high-card ids 100k×3', highCardinalityTable(100_000), LARGE);
    measure('flights 2k×5', flightsResult(2000), SMALL);
    measure('flights 20k×5', flightsResult(20_000), SMALL);
    measure(
      'all-null 2k×10',
      constantTable(2000, 10, () => null),
      SMALL,
    );
    measure(
      'all-identical 2k×10',
      constantTable(2000, 10, (column) => (column % 2 === 0 ? 42.5 : 'same')),
      SMALL,
    );
    measure('100k×20', generatedTable(100_000, 20), LARGE);
    const million = measure('1M×5', generatedTable(1_000_000, 5), HUGE);
    million.streamed = streamed;

    const path = writeBenchResult('compaction', {
      method:
        'rows JSON round-tripped (flat strings, as delivered); per shape: warm-up (≥5 runs and ≥0.5 s, ≤50 runs), then interleaved digest/JSON.stringify pairs (order alternating, a scavenge before each run); times are medians, time_ratio the median of per-pair ratios',
      digest_budget_bytes: DIGEST_BUDGET_BYTES,
      complete_digest_budget_bytes: COMPLETE_DIGEST_BUDGET_BYTES,
      cases,
    });
    process.stdout.write(
      `${renderTable(
        [
          'case',
          'rows',
          'cols',
          'JSON bytes',
          'digest bytes',
          'rendered bytes',
          'budget',
          'ratio',
          'digest ms',
          'stringify ms',
          'time ratio',
          'p25–p75',
          'pairs',
        ],
        cases.map((entry) => [
          entry.case,
          entry.rows,
          entry.cols,
          entry.json_bytes,
          entry.digest_bytes,
          entry.rendered_bytes,
          entry.budget_bytes,
          `${entry.ratio}×`,
          entry.digest_ms,
          entry.stringify_ms,
          entry.time_ratio,
          `${entry.time_ratio_p25}–${entry.time_ratio_p75}`,
          entry.pairs,
        ]),
      )}\n`,
    );
    process.stdout.write(
      `streamed ${streamed.rows}×${streamed.cols}: ${streamed.digest_ms} ms, peak RSS +${streamed.peak_rss_delta_mb} MB, ` +
        `peak heap +${streamed.peak_heap_delta_mb} MB, retained +${streamed.retained_heap_delta_mb} MB\n`,
    );
    process.stdout.write(`wrote ${path}\n`);
  },
};
