/**
 * The analyst's notes between exploration turns. The engine shortens old turns (schema lookups
 * included), so, like a model keeping a scratchpad, the analyst carries what it learned (tables,
 * columns, profiled cardinalities, the setup steps taken, the step its query plan started at) in the
 * `notes` of an action, which the engine shows in every later prompt; it writes them only when they
 * change. Deflated and hex-encoded, so the notes stay small and no table or column word in them reads as
 * a keyword match. Older runs carried them in each action's `thinking`; those are still read.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { ColumnModel, ColumnRole, TableModel } from './types.js';

export interface AnalystMemo {
  tables: TableModel[];
  /** Keys of planned actions already taken (run or failed: never repeated). */
  done: string[];
  /** Whether the cardinality profile has been read (or failed). */
  profiled: boolean;
  /** Whether the one table search has been spent. */
  searched: boolean;
  /** The step the query plan started at: plan query k runs at step `planStart + k`. */
  planStart?: number | undefined;
}

const ROLE_CODES: Record<ColumnRole, string> = { key: 'k', reference: 'r', time: 't', flag: 'f', metric: 'm', ordinal: 'o', text: 'x' };
const CODE_ROLES = new Map(Object.entries(ROLE_CODES).map(([role, code]) => [code, role as ColumnRole]));
const MEMO_PATTERN = /\[notes:([0-9a-f]+)\]/;

export function emptyMemo(): AnalystMemo {
  return { tables: [], done: [], profiled: false, searched: false };
}

type PackedColumn = [string, string, string, (number | null)?, (string[] | null)?, number?];
type PackedTable = [string, number, PackedColumn[]];

function packColumn(column: ColumnModel): PackedColumn {
  const packed: PackedColumn = [column.name, column.type, `${ROLE_CODES[column.role]}${column.nullable ? '?' : ''}`];
  if (column.distinct !== undefined || column.values !== undefined || column.words !== undefined) packed.push(column.distinct ?? null);
  if (column.values !== undefined || column.words !== undefined) packed.push(column.values ?? null);
  if (column.words !== undefined) packed.push(column.words);
  return packed;
}

function unpackColumn(packed: PackedColumn): ColumnModel {
  const [name, type, code, distinct, values, words] = packed;
  const column: ColumnModel = { name, type, role: CODE_ROLES.get(code.charAt(0)) ?? 'text', nullable: code.endsWith('?') };
  if (distinct !== undefined && distinct !== null) column.distinct = distinct;
  if (values !== undefined && values !== null) column.values = values;
  if (words !== undefined) column.words = words;
  return column;
}

function encodePacked(memo: AnalystMemo): string {
  const packed = {
    t: memo.tables.map((table): PackedTable => [table.qualified, table.rows, table.columns.map(packColumn)]),
    d: memo.done,
    p: memo.profiled ? 1 : 0,
    s: memo.searched ? 1 : 0,
    ...(memo.planStart === undefined ? {} : { q: memo.planStart }),
  };
  return `[notes:${deflateRawSync(Buffer.from(JSON.stringify(packed), 'utf8'), { level: 9 }).toString('hex')}]`;
}

function withColumns(memo: AnalystMemo, change: (column: ColumnModel) => ColumnModel): AnalystMemo {
  return { ...memo, tables: memo.tables.map((table) => ({ ...table, columns: table.columns.map(change) })) };
}

/**
 * The notes, at most `maxChars` long when that can be done: like a model whose reply must fit its
 * output limit, the analyst forgets detail first (frequent words, then listed values beyond three,
 * then all listed values), then the last-learned tables; the plan already run is always kept.
 */
export function encodeMemo(memo: AnalystMemo, maxChars = Number.POSITIVE_INFINITY): string {
  let current = memo;
  let encoded = encodePacked(current);
  const shrinkers: Array<(notes: AnalystMemo) => AnalystMemo> = [
    (notes) => withColumns(notes, ({ words: _words, ...column }) => column),
    (notes) => withColumns(notes, (column) => (column.values ? { ...column, values: column.values.slice(0, 3) } : column)),
    (notes) => withColumns(notes, ({ values: _values, ...column }) => column),
  ];
  for (const shrink of shrinkers) {
    if (encoded.length <= maxChars) return encoded;
    current = shrink(current);
    encoded = encodePacked(current);
  }
  while (encoded.length > maxChars && current.tables.length > 1) {
    current = { ...current, tables: current.tables.slice(0, -1) };
    encoded = encodePacked(current);
  }
  return encoded;
}

/** The notes in a thinking text, or null when there are none (or they cannot be read). */
export function decodeMemo(thinking: string): AnalystMemo | null {
  const match = MEMO_PATTERN.exec(thinking);
  if (!match) return null;
  try {
    const packed = JSON.parse(inflateRawSync(Buffer.from(match[1] as string, 'hex')).toString('utf8')) as {
      t: PackedTable[];
      d: string[];
      p: number;
      s: number;
      q?: number;
    };
    return {
      tables: packed.t.map(([qualified, rows, columns]) => ({
        qualified,
        name: qualified.split('.').at(-1) ?? qualified,
        rows,
        columns: columns.map(unpackColumn),
      })),
      done: packed.d,
      profiled: packed.p === 1,
      searched: packed.s === 1,
      ...(typeof packed.q === 'number' ? { planStart: packed.q } : {}),
    };
  } catch {
    return null;
  }
}
