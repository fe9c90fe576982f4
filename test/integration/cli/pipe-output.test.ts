/**
 * Output piped to a slow reader arrives whole: the CLI's exit waits until stdout is flushed, where a
 * bare `process.exit` after a large write dropped everything the pipe had not taken yet. And a reader
 * that closes early (`| head`) ends the process quietly rather than with an EPIPE stack.
 *
 * The child writes 1 MiB (far past a pipe's 64 KiB), tells the test on a side channel (fd 3) that its
 * writes are queued, and only then does the test start reading stdout: the child is at its exit by
 * then, so nothing but the exit's wait keeps the rest of the output alive.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const EXIT_MODULE = resolve(REPO_ROOT, 'src', 'cli', 'exit.ts');
const SIZE = 1 << 20;

function child(script: string) {
  const spawned = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  return Object.assign(spawned, { stdout: spawned.stdout as Readable, stderr: spawned.stderr as Readable });
}

function once(stream: Readable, event: string): Promise<void> {
  return new Promise((done) => stream.once(event, () => done()));
}

describe('the CLI process ends without losing or choking on piped output', () => {
  it('hands a slow reader every byte written before the exit', async () => {
    const process_ = child(`
      import { writeSync } from 'node:fs';
      import { exitWhenWritten } from ${JSON.stringify(EXIT_MODULE)};
      process.stdout.write('x'.repeat(${SIZE}));
      writeSync(3, 'queued\\n');
      await exitWhenWritten(0);
    `);
    const side = process_.stdio[3] as Readable;
    await once(side, 'data');
    let received = 0;
    process_.stdout.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    const code = await new Promise<number | null>((done) => process_.once('close', (status) => done(status)));
    expect(code).toBe(0);
    expect(received).toBe(SIZE);
  });

  it('exits quietly with 0 when the reader closes before the output is done', async () => {
    const process_ = child(`
      import { endQuietlyWhenReaderCloses } from ${JSON.stringify(EXIT_MODULE)};
      endQuietlyWhenReaderCloses();
      // a command still producing output: writes until something stops the process
      const more = () => process.stdout.write('x'.repeat(65536), () => setImmediate(more));
      more();
    `);
    let stderr = '';
    process_.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    await once(process_.stdout, 'readable');
    process_.stdout.destroy();
    const code = await new Promise<number | null>((done) => process_.once('close', (status) => done(status)));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
