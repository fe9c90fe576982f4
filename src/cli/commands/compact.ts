/** `assay compact`: print the CompactResult digest of a JSON result, the same digest analysis prompts use. */
import { closeSync, createReadStream, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Command } from 'commander';
import { createDigestBuilder, type DigestBuilder, type ResultColumn } from '../../compaction/compact-result.js';
import type { CompactResult } from '../../domain/index.js';
import { ValidationError } from '../../errors/index.js';
import { printJson } from '../output.js';
import { EXPECTED_INPUT, ResultJsonReader } from '../result-json-reader.js';

export function register(program: Command): void {
  program
    .command('compact')
    .description('print the CompactResult digest (per-column statistics + head/tail rows) of a JSON query result')
    .option('-i, --input <file>', 'JSON file with the rows, or - for stdin', '-')
    .addHelpText(
      'after',
      `\nInput: ${EXPECTED_INPUT}.\nCells must be strings, numbers, booleans or null; nested values are shown as JSON text.\nThe input is streamed, so memory does not grow with the row count; "columns" placed after "rows" make it read twice (stdin through a temporary copy).\n\nExamples:\n  assay compact --input rows.json\n  duckdb -json -c "select * from t" | assay compact`,
    )
    .action(async (options: { input: string }) => {
      printJson(await digestResultInput(options.input));
    });
}

/** The digest of the JSON result in `input`: a file, or - for stdin. */
export function digestResultInput(input: string): Promise<CompactResult> {
  if (input === '-') return digestResultStream(process.stdin, 'stdin');
  return digestResultStream(createReadStream(input), input, () => createReadStream(input));
}

type Chunks = AsyncIterable<Buffer | string>;

/**
 * The digest of a JSON result read from `input` as it arrives (see ResultJsonReader), in memory bounded
 * by the column count and the largest row.
 *
 * The declared columns decide the column list and the types the statistics read the cells with, so rows
 * that come before their columns (`{"rows": […], "columns": […]}`) are read a second time once the columns
 * are known: from `reread` (a file opens again), else from a temporary copy of the input, which is kept
 * only while such a second pass may be needed (an object whose rows start before any "columns").
 */
export async function digestResultStream(input: Chunks, source: string, reread?: () => Chunks): Promise<CompactResult> {
  const copy = reread === undefined ? new InputCopy() : undefined;
  try {
    const first = await readPass(input, source, undefined, copy);
    if (first.lateColumns === undefined) return first.builder.finish();
    const again = reread === undefined ? (copy as InputCopy).replay() : reread();
    // The columns are given this time: the document's own are ignored, so none come late.
    return (await readPass(again, source, first.lateColumns, undefined)).builder.finish();
  } finally {
    copy?.remove();
  }
}

/**
 * One pass over the input, every row into the builder. With `declared`, those are the columns and the
 * document's own are ignored; without, the columns the document declares before its rows, else those the
 * rows have. `lateColumns`: columns the document declares after its rows, which this pass could not use.
 */
async function readPass(
  input: Chunks,
  source: string,
  declared: ResultColumn[] | undefined,
  copy: InputCopy | undefined,
): Promise<{ builder: DigestBuilder; lateColumns: ResultColumn[] | undefined }> {
  let columns = declared;
  let lateColumns: ResultColumn[] | undefined;
  let builder: DigestBuilder | undefined;
  const reader = new ResultJsonReader(source, {
    rowsStart: () => {
      builder = createDigestBuilder(columns);
    },
    row: (row) => (builder as DigestBuilder).add(row),
    columns: (found) => {
      if (declared !== undefined) return;
      if (builder === undefined) columns = found;
      else lateColumns = found;
    },
  });
  const decoder = new StringDecoder('utf8');
  for await (const chunk of readable(input, source)) {
    reader.write(typeof chunk === 'string' ? chunk : decoder.write(chunk));
    if (copy !== undefined) {
      if (reader.form === 'array' || (builder !== undefined && columns !== undefined)) copy.remove();
      else copy.append(chunk);
    }
  }
  reader.write(decoder.end());
  // A document without a rows array fails here, so a complete one has a builder.
  reader.end();
  return { builder: builder as DigestBuilder, lateColumns };
}

/** The input's chunks; a failure to read them is the user's to fix (a missing file, a directory, a closed pipe). */
async function* readable(input: Chunks, source: string): AsyncGenerator<Buffer | string> {
  try {
    yield* input;
  } catch (error) {
    throw new ValidationError(`cannot read ${source}: ${(error as Error).message}`, [{ path: 'input', message: 'a readable file or -' }]);
  }
}

/** A copy of an input that cannot be read twice (stdin), in a temporary file, until `remove`. */
class InputCopy {
  private directory: string | undefined;
  private file: number | undefined;
  private removed = false;

  append(chunk: Buffer | string): void {
    if (this.removed) return;
    try {
      if (this.directory === undefined) {
        this.directory = mkdtempSync(join(tmpdir(), 'assay-compact-'));
        this.file = openSync(join(this.directory, 'input.json'), 'w');
      }
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      for (let written = 0; written < bytes.length; ) written += writeSync(this.file as number, bytes, written);
    } catch (error) {
      throw new Error(
        `cannot copy stdin to ${tmpdir()} (the rows may have to be read again for "columns" after them; put "columns" first or use --input): ${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  /** The copied input, read again. */
  replay(): Chunks {
    if (this.directory === undefined || this.removed) throw new Error('compact: no copy of the input to read again');
    if (this.file !== undefined) closeSync(this.file);
    this.file = undefined;
    return createReadStream(join(this.directory, 'input.json'));
  }

  remove(): void {
    this.removed = true;
    if (this.file !== undefined) closeSync(this.file);
    this.file = undefined;
    if (this.directory !== undefined) rmSync(this.directory, { recursive: true, force: true });
    this.directory = undefined;
  }
}
