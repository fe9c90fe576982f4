/**
 * `assay --help` starts fast because it loads only the CLI's own light modules: every command declares
 * its options with commander and imports its implementation inside its action. Checked on module
 * identity, not time: the real launcher (bin/assay.js) runs in a child process under a loader hook
 * that records the URL of every module it loads (test/support/module-trace.mjs).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO_ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const LAUNCHER = join(REPO_ROOT, 'bin', 'assay.js');
const TRACER = join(REPO_ROOT, 'test', 'support', 'module-trace.mjs');

/**
 * Packages only some commands need: model SDKs, database drivers, the queue, the HTTP stack, and the
 * config and logging libraries every action (but no help page) uses.
 */
const HEAVY_PACKAGES = [
  '@anthropic-ai/sdk',
  '@aws-sdk/client-bedrock-runtime',
  'openai',
  '@duckdb/node-api',
  'bullmq',
  'ioredis',
  'hono',
  '@hono/node-server',
  '@bull-board/api',
  '@bull-board/hono',
  'pg',
  'mongodb',
  'libpg-query',
  '@qdrant/js-client-rest',
  'prom-client',
  'pino',
  'pino-pretty',
  'zod',
  'yaml',
];

function packageOf(url: string): string | undefined {
  const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url.slice(url.lastIndexOf('/node_modules/')));
  return match?.[1];
}

describe('when the assay CLI only prints help or its version', () => {
  let workDir: string;

  beforeAll(() => {
    // an empty working directory: no assay.config.* and no .assay data directory of the repository
    workDir = mkdtempSync(join(tmpdir(), 'assay-lazy-loading-'));
  });
  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  /** Runs the launcher as a user would, returning its output and the packages of every module it loaded. */
  function traced(args: readonly string[], name: string) {
    const traceFile = join(workDir, `${name}.trace`);
    const child = spawnSync(process.execPath, ['--import', TRACER, LAUNCHER, ...args], {
      cwd: workDir,
      env: { ...process.env, ASSAY_MODULE_TRACE: traceFile },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const urls = readFileSync(traceFile, 'utf8').split('\n').filter(Boolean);
    return { status: child.status, stdout: child.stdout, stderr: child.stderr, urls, packages: new Set(urls.map(packageOf)) };
  }

  it.each([
    { name: 'help', args: ['--help'], expected: 'Usage: assay [options] [command]' },
    { name: 'api-help', args: ['api', '--help'], expected: 'Usage: assay api [options]' },
    { name: 'worker-help', args: ['worker', '--help'], expected: 'Usage: assay worker [options]' },
    { name: 'api-key-create-help', args: ['api-key', 'create', '--help'], expected: 'Usage: assay api-key create [options]' },
    { name: 'version', args: ['--version'], expected: '0.1.0' },
  ])('`assay $args` loads none of the SDKs, drivers, queue or HTTP packages', ({ name, args, expected }) => {
    const run = traced(args, name);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(expected);
    // the trace saw the CLI itself: an empty or broken trace cannot pass
    expect(run.packages).toContain('commander');
    expect(run.urls.some((url) => /\/src\/cli\/main\.(ts|js)$/.test(url))).toBe(true);
    expect(HEAVY_PACKAGES.filter((name) => run.packages.has(name))).toEqual([]);
  });

  it('still loads what a command needs once it runs (the trace sees lazily imported packages)', () => {
    const run = traced(['query', '--warehouse', 'duckdb::memory:', '--json', 'SELECT 42 AS answer'], 'query');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ rows: [{ answer: 42 }] });
    expect(run.packages).toContain('@duckdb/node-api');
  });
});
