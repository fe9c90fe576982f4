/**
 * `node --import ./test/support/module-trace.mjs …` with ASSAY_MODULE_TRACE=<file>: appends the URL of
 * every module the process loads to <file>, one a line. ES modules are seen by a load hook (which every
 * module passes through, whichever loader resolved it, tsx's included); CommonJS modules required from
 * CommonJS bypass the hooks, so the require cache is added at exit. Plain JavaScript: it must run before
 * any TypeScript loader is registered.
 */
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';

let traceFile;

export function initialize(data) {
  traceFile = data.traceFile;
}

export async function load(url, context, nextLoad) {
  appendFileSync(traceFile, `${url}\n`);
  return nextLoad(url, context);
}

const target = process.env.ASSAY_MODULE_TRACE;
// this file is also loaded in the hooks thread, where it must only serve the hooks
if (isMainThread && target) {
  register(import.meta.url, { data: { traceFile: target } });
  const require = createRequire(import.meta.url);
  process.on('exit', () => {
    appendFileSync(
      target,
      Object.keys(require.cache)
        .map((path) => `${pathToFileURL(path).href}\n`)
        .join(''),
    );
  });
}
