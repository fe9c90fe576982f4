/**
 * Ending the CLI process without losing output. Writes to a pipe are asynchronous in Node on POSIX:
 * `process.exit` right after a large `process.stdout.write` drops whatever the reader has not taken
 * yet (`assay query --json … | jq` lost everything past the first 64–192 KiB). So the exit waits
 * until every chunk already written to stdout and stderr has been handed to the OS.
 */
import type { Writable } from 'node:stream';

/** Resolves once every chunk written to the stream so far has been flushed (or the stream is gone). */
export function written(stream: Writable): Promise<void> {
  if (stream.destroyed || stream.writableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    // a chunk's callback runs after the chunks before it; an empty write queues behind them all
    stream.write('', () => resolve());
    // a reader that went away (EPIPE) ends the wait as well: nobody will take the rest
    stream.once('error', () => resolve());
    stream.once('close', () => resolve());
  });
}

/** Exits with `code` once stdout and stderr hold nothing unwritten. */
export async function exitWhenWritten(code: number): Promise<never> {
  await Promise.all([written(process.stdout), written(process.stderr)]);
  process.exit(code);
}

/**
 * A reader that closes early (`assay query --json … | head`) is not an error of the command: the
 * process ends quietly, as `cat` or `grep` would, instead of dying on an unhandled EPIPE with a stack.
 */
export function endQuietlyWhenReaderCloses(stream: Writable = process.stdout): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}
