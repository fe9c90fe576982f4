/**
 * `npm run bench -- compaction`: digest size and time against the raw JSON of the same rows, per shape
 * of result, plus the memory a streamed one-million-row digest needs. Writes bench-results/compaction.json.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { compactResult, type ResultColumn } from '../../src/compaction/compact-result.js';
import { renderStepDigest } from '../../src/compaction/render.js';
import { explorationStepSchema, type Cell, type Row } from '../../src/domain/index.js';
import { renderTable } from '../../src/cli/context.js';
import { seededRandom, sessionsResult } from '../unit/compaction/fixtures.js';
import { medianTime, round, writeBenchResult, type Bench } from './bench.js';

interface Table {
  columns: ResultColumn[];
  rows: Row[];
}

interface CaseResult {
  case: string;
  rows: number;
  cols: number;
  json_bytes: number;
  digest_bytes: number;
  ratio: number;
  digest_ms: number;
  stringify_ms: number;
  /** digest_ms / stringify_ms: the target is ≤ 2. */
  time_ratio: number;
  /** The digest as the analysis prompt renders it (rows column-wise), for comparison with digest_bytes. */
  rendered_bytes: number;
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

function measureCase(name: string, table: Table, repetitions: number): CaseResult {
  const stringify = medianTime(repetitions, () => JSON.stringify(table.rows));
  const digest = medianTime(repetitions, () => compactResult(table.columns, table.rows));
  const jsonBytes = Buffer.byteLength(stringify.value);
  const digestBytes = Buffer.byteLength(JSON.stringify(digest.value));
  const step = explorationStepSchema.parse({
    run_id: 'bench',
    step: 1,
    action: 'query',
    timestamp: '2024-01-01T00:00:00Z',
    query_purpose: '',
    query: '',
    compact: digest.value,
  });
  return {
    case: name,
    rows: table.rows.length,
    cols: table.columns.length,
    json_bytes: jsonBytes,
    digest_bytes: digestBytes,
    ratio: round(jsonBytes / digestBytes, 1),
    digest_ms: digest.ms,
    stringify_ms: stringify.ms,
    time_ratio: round(digest.ms / stringify.ms, 2),
    rendered_bytes: Buffer.byteLength(renderStepDigest(step)),
  };
}

/** Make `gc()` callable without a command-line flag, so memory readings start from a collected heap. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
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
    cases.push(measureCase('mixed 2k×10', sessionsResult(2000), 21));
    // Before anything large is allocated, so the process's RSS high-water mark is still low.
    const streamed = measureStreamedMemory(1_000_000, 5);
    cases.push(measureCase('100k×20', generatedTable(100_000, 20), 3));
    cases.push({ ...measureCase('1M×5', generatedTable(1_000_000, 5), 3), streamed });
    cases.push(measureCase('wide 2k×200', generatedTable(2000, 200), 9));
    cases.push(
      measureCase(
        'all-null 2k×10',
        constantTable(2000, 10, () => null),
        21,
      ),
    );
    cases.push(
      measureCase(
        'all-identical 2k×10',
        constantTable(2000, 10, (column) => (column % 2 === 0 ? 42.5 : 'same')),
        21,
      ),
    );
    cases.push(measureCase('high-card ids 100k×3', highCardinalityTable(100_000), 3));

    const path = writeBenchResult('compaction', cases);
    process.stdout.write(
      `${renderTable(
        ['case', 'rows', 'cols', 'JSON bytes', 'digest bytes', 'ratio', 'rendered bytes', 'digest ms', 'stringify ms', 'time ratio'],
        cases.map((entry) => [
          entry.case,
          entry.rows,
          entry.cols,
          entry.json_bytes,
          entry.digest_bytes,
          `${entry.ratio}×`,
          entry.rendered_bytes,
          entry.digest_ms,
          entry.stringify_ms,
          entry.time_ratio,
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
