/**
 * What `assay demo`, `assay run` and `assay eval` share: compose the runtime, make sure the project
 * exists, create the run, run it in-process with progress, and write run.json, result.json and
 * report.html under the output directory.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { silenceSdkNotices } from '../llm/providers/sdk-warnings.js';
import { composeRuntime, type Runtime } from '../composition.js';
import type { AssayConfig } from '../config/index.js';
import { redactUrl } from '../config/index.js';
import { createRun } from '../discovery/phases/create-run.js';
import { runAreaSummaries } from '../discovery/phases/run-setting.js';
import { projectSchema, type DiscoveryResult, type Project, type Run } from '../domain/index.js';
import { runDiscoveryLocally } from '../fleet/local/runner.js';
import { NotFoundError } from '../errors/index.js';
import type { Logger } from '../logging/index.js';
import { renderRunReport } from '../report/index.js';
import { createProgressDisplay } from './progress.js';

export interface DiscoveryRequest {
  projectId: string;
  projectName: string;
  pack: string;
  category?: string | undefined;
  maxSteps: number;
  minSteps: number;
  areas?: string[];
  outDir: string;
  quiet?: boolean;
}

export interface DiscoveryOutcome {
  run: Run;
  result: DiscoveryResult;
  outputDir: string;
  reportPath: string;
}

/** `slug` or `slug:category`. */
export function parsePackArgument(value: string): { pack: string; category?: string } {
  const [pack, category] = value.split(':', 2);
  return category ? { pack: pack!, category } : { pack: pack! };
}

async function ensureProject(runtime: Runtime, request: DiscoveryRequest, config: AssayConfig): Promise<Project> {
  const now = runtime.now().toISOString();
  const existing = await runtime.store.getProject(request.projectId);
  const project = projectSchema.parse({
    ...(existing ?? { created_at: now, profile: {} }),
    id: request.projectId,
    name: request.projectName,
    domain: request.pack,
    ...(request.category ? { category: request.category } : {}),
    // never store credentials in the project document; the schema cache key ignores them anyway
    warehouse: { ...(existing?.warehouse ?? {}), url: redactUrl(config.warehouse) },
    llm: config.llm,
    embedder: config.embedder,
    updated_at: now,
  });
  await runtime.store.upsertProject(project);
  return project;
}

/** Writes the run's artefacts; returns the report path. */
export async function writeRunArtefacts(runtime: Pick<Runtime, 'store' | 'loadPack'>, runId: string, outputDir: string): Promise<string> {
  const run = await runtime.store.getRun(runId);
  const result = await runtime.store.getResult(runId);
  if (!run || !result) throw new NotFoundError(`run ${runId} has no stored result yet (is it still running?)`, { runId });
  const steps = await runtime.store.listSteps(runId);
  await mkdir(outputDir, { recursive: true });
  const areas = runAreaSummaries(runtime.loadPack, run);
  const reportPath = join(outputDir, 'report.html');
  await writeFile(join(outputDir, 'run.json'), `${JSON.stringify(run, null, 2)}\n`);
  await writeFile(join(outputDir, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
  await writeFile(reportPath, renderRunReport({ run, result, steps, ...(areas ? { areas } : {}) }));
  return reportPath;
}

export async function runDiscovery(config: AssayConfig, request: DiscoveryRequest, logger: Logger): Promise<DiscoveryOutcome> {
  // before any SDK client exists: the AWS SDK decides on its Node-version notice when its first client is built
  if (request.quiet) silenceSdkNotices();
  const runtime = await composeRuntime(config, { logger });
  const controller = new AbortController();
  const onSignal = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal);
  try {
    const project = await ensureProject(runtime, request, config);
    const run = await createRun(
      runtime.store,
      project,
      {
        maxSteps: request.maxSteps,
        minSteps: request.minSteps,
        areas: request.areas ?? [],
        llm: config.llm,
        pack: request.pack,
        category: request.category,
        analysisBudgetTokens: config.run.analysisBudgetTokens,
      },
      runtime.now(),
    );
    const progress = createProgressDisplay({ store: runtime.store, runId: run.id, ...(request.quiet ? { quiet: true } : {}) });
    let result: DiscoveryResult;
    try {
      result = await runDiscoveryLocally(runtime, run.id, {
        concurrency: config.run.concurrency,
        onEvent: progress.onEvent,
        signal: controller.signal,
      });
    } finally {
      progress.stop();
    }
    const outputDir = resolve(request.outDir, run.id);
    const reportPath = await writeRunArtefacts(runtime, run.id, outputDir);
    const stored = (await runtime.store.getRun(run.id)) ?? run;
    return { run: stored, result, outputDir, reportPath };
  } finally {
    process.off('SIGINT', onSignal);
    await runtime.close();
  }
}
