/**
 * Preload for the store benchmark (`node --import tsx --import ./test/bench/fs-counter.ts …`): counts the
 * file writes, appends, renames and fsyncs the process makes through node:fs/promises and the descriptor
 * functions of node:fs (openSync, writeSync, fsync, fdatasync), by kind of file, and writes the counts with the process's CPU time to $FS_COUNTER_OUT at exit.
 * It changes no behaviour; it only wraps the functions to count their calls.
 */
import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { basename } from 'node:path';

export interface FsCounts {
  /** Atomic writes of a run document (renames onto run.json). */
  run_json_writes: number;
  /** Appends to a run journal (one per update that did not rewrite run.json). */
  run_journal_appends: number;
  /** Step writes: step files renamed into place, or appends to steps.jsonl. */
  step_writes: number;
  /** Vector collection files renamed into place, and appends to their journals. */
  vector_file_writes: number;
  vector_journal_appends: number;
  /** Every fsync and fdatasync, of files and directories. */
  fsyncs: number;
  fsyncs_by_kind: Record<string, number>;
  bytes_written: number;
  cpu_ms: number;
}

function kindOf(path: string): string {
  const name = basename(path).replace(/\.\d+\.\d+\.tmp$/, '');
  if (name === 'run.json') return 'run.json';
  if (name === 'run.journal') return 'run.journal';
  if (name === 'steps.jsonl' || /^\d{5}\.json$/.test(name)) return 'steps';
  if (name.endsWith('.collection.json')) return 'vector-file';
  if (name.endsWith('.collection.jsonl')) return 'vector-journal';
  if (!name.includes('.')) return 'directory';
  return 'other';
}

const counts: FsCounts = {
  run_json_writes: 0,
  run_journal_appends: 0,
  step_writes: 0,
  vector_file_writes: 0,
  vector_journal_appends: 0,
  fsyncs: 0,
  fsyncs_by_kind: {},
  bytes_written: 0,
  cpu_ms: 0,
};

function countFsync(kind: string): void {
  counts.fsyncs++;
  counts.fsyncs_by_kind[kind] = (counts.fsyncs_by_kind[kind] ?? 0) + 1;
}

function countAppend(kind: string, bytes: number): void {
  counts.bytes_written += bytes;
  if (kind === 'run.journal') counts.run_journal_appends++;
  else if (kind === 'steps') counts.step_writes++;
  else if (kind === 'vector-journal') counts.vector_journal_appends++;
}

const sizeOf = (data: unknown): number =>
  typeof data === 'string' ? Buffer.byteLength(data) : ArrayBuffer.isView(data) ? data.byteLength : 0;

const promises = fs.promises;
const handleKinds = new WeakMap<FileHandle, { kind: string; append: boolean }>();
const originalOpen = promises.open;
let patchedPrototype = false;

function patchPrototype(handle: FileHandle): void {
  if (patchedPrototype) return;
  patchedPrototype = true;
  const prototype = Object.getPrototypeOf(handle) as FileHandle;
  const { sync, datasync, write, writeFile } = prototype;
  prototype.sync = function (this: FileHandle) {
    countFsync(handleKinds.get(this)?.kind ?? 'other');
    return sync.call(this);
  };
  prototype.datasync = function (this: FileHandle) {
    countFsync(handleKinds.get(this)?.kind ?? 'other');
    return datasync.call(this);
  };
  prototype.write = function (this: FileHandle, ...args: unknown[]) {
    const info = handleKinds.get(this);
    if (info?.append) countAppend(info.kind, sizeOf(args[0]));
    else counts.bytes_written += sizeOf(args[0]);
    return (write as (...inner: unknown[]) => ReturnType<FileHandle['write']>).apply(this, args);
  } as FileHandle['write'];
  prototype.writeFile = function (this: FileHandle, data: unknown, options?: unknown) {
    counts.bytes_written += sizeOf(data);
    return (writeFile as (...inner: unknown[]) => Promise<void>).call(this, data, options);
  } as FileHandle['writeFile'];
}

promises.open = (async (path: fs.PathLike, flags?: string | number, mode?: fs.Mode) => {
  const handle = await originalOpen(path, flags, mode);
  patchPrototype(handle);
  handleKinds.set(handle, { kind: kindOf(String(path)), append: typeof flags === 'string' && flags.startsWith('a') });
  return handle;
}) as typeof promises.open;

const originalRename = promises.rename;
promises.rename = (async (from: fs.PathLike, to: fs.PathLike) => {
  const kind = kindOf(String(to));
  if (kind === 'run.json') counts.run_json_writes++;
  else if (kind === 'steps') counts.step_writes++;
  else if (kind === 'vector-file') counts.vector_file_writes++;
  return originalRename(from, to);
}) as typeof promises.rename;

const originalAppendFile = promises.appendFile;
promises.appendFile = (async (path: Parameters<typeof promises.appendFile>[0], data: string | Uint8Array, options?: unknown) => {
  countAppend(kindOf(String(path)), sizeOf(data));
  return originalAppendFile(path, data, options as Parameters<typeof promises.appendFile>[2]);
}) as typeof promises.appendFile;

/** Descriptors opened through the synchronous API, by kind of file, and whether for appending. */
const descriptorKinds = new Map<number, { kind: string; append: boolean }>();
const { openSync, writeSync, closeSync } = fs;
fs.openSync = ((path: fs.PathLike, flags?: fs.OpenMode, mode?: fs.Mode) => {
  const fd = openSync(path, flags ?? 'r', mode);
  descriptorKinds.set(fd, { kind: kindOf(String(path)), append: typeof flags === 'string' && flags.startsWith('a') });
  return fd;
}) as typeof fs.openSync;
fs.writeSync = ((fd: number, ...args: unknown[]) => {
  const info = descriptorKinds.get(fd);
  const bytes = typeof args[0] === 'string' ? Buffer.byteLength(args[0]) : typeof args[2] === 'number' ? args[2] : sizeOf(args[0]);
  if (info?.append) countAppend(info.kind, bytes);
  else counts.bytes_written += bytes;
  return (writeSync as (...inner: unknown[]) => number)(fd, ...args);
}) as typeof fs.writeSync;
fs.closeSync = ((fd: number) => {
  descriptorKinds.delete(fd);
  closeSync(fd);
}) as typeof fs.closeSync;

for (const name of ['fsync', 'fdatasync', 'fsyncSync', 'fdatasyncSync'] as const) {
  const original = fs[name] as (...args: unknown[]) => unknown;
  (fs as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
    countFsync(descriptorKinds.get(args[0] as number)?.kind ?? 'fd');
    return original(...args);
  };
}

syncBuiltinESMExports();

const { writeFileSync } = fs;
process.on('exit', () => {
  const output = process.env.FS_COUNTER_OUT;
  if (!output) return;
  const cpu = process.cpuUsage();
  counts.cpu_ms = Math.round((cpu.user + cpu.system) / 1000);
  writeFileSync(output, JSON.stringify(counts));
});
