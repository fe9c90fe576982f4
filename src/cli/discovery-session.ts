/**
 * What `assay demo`, `assay run`, `assay runs resume` and `assay eval` share: check every input
 * before anything is created, compose the runtime, find or create the project, create (or reopen)
 * the run, drive it in-process with progress and a lease, stop it cleanly on SIGINT/SIGTERM, and
 * write run.json, result.json and report.html under the output directory.
 *
 * Order matters: `--out`, the step limits, the pack, its category and areas, the warehouse (it
 * opens, and has rows), the model and the project's identity are all checked first; a refusal at any
 * point leaves no project, run, lease or output directory behind.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { assertStepBounds } from '../common/run-limits.js';
import { silenceSdkNotices } from '../llm/providers/sdk-warnings.js';
import { composeRuntime, type Runtime } from '../composition.js';
import type { AssayConfig } from '../config/index.js';
import { redactUrl } from '../config/index.js';
import { createRun, newRunId } from '../discovery/phases/create-run.js';
import { runAreaSummaries } from '../discovery/phases/run-setting.js';
import { isPackPath, resolveAreas } from '../discovery/packs/pack-loader.js';
import { isTerminal, projectSchema, type DiscoveryResult, type Project, type Run } from '../domain/index.js';
import { CancelledError, ConflictError, NotFoundError, ValidationError, describeError } from '../errors/index.js';
import { holdRunLease, leaseDirOf, readRunLease } from '../fleet/local/run-lease.js';
import { runDiscoveryLocally } from '../fleet/local/runner.js';
import type { Logger } from '../logging/index.js';
import { renderRunReport } from '../report/index.js';
import { selectAreas } from '../runs/area-selection.js';
import {
  absoluteWarehouseUrl,
  assertProjectTarget,
  findProjectFor,
  newProjectId,
  warehouseIdentity,
  warehouseStem,
} from '../runs/project-identity.js';
import { latestRun } from '../runs/latest-run.js';
import { assertResumable, reopenRun } from '../runs/reopen-run.js';
import { describeSignal, type InterruptSignal, onInterrupt } from './interrupts.js';
import { settleInterruptedRuns } from './interrupted-runs.js';
import { checkOutputDir } from './output-dir.js';
import { createProgressDisplay } from './progress.js';

export interface DiscoveryRequest {
  /** The project; left out, the project of this warehouse and pack (created when there is none). */
  projectId?: string | undefined;
  projectName?: string | undefined;
  /** A shipped pack's slug or a pack directory; left out, the shipped pack that matches the warehouse (else general). */
  pack?: string | undefined;
  category?: string | undefined;
  maxSteps: number;
  minSteps: number;
  areas?: string[];
  outDir: string;
  quiet?: boolean;
  /** Told about choices made for the caller (which pack, which project); one line each. */
  onNotice?: (line: string) => void;
}

export interface DiscoveryOutcome {
  run: Run;
  result: DiscoveryResult;
  outputDir: string;
  reportPath: string;
  /** Set when a signal stopped the run: it is `cancelled`, its steps kept, and it can be resumed. */
  interruptedBy?: InterruptSignal;
}

/** `slug` or `slug:category`. */
export function parsePackArgument(value: string): { pack: string; category?: string } {
  const [pack, category] = value.split(':', 2);
  return category ? { pack: pack!, category } : { pack: pack! };
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

/** The config of a CLI run: its DuckDB path absolute, so the project records where the data is wherever the next run starts. */
export function withAbsoluteWarehouse(config: AssayConfig): AssayConfig {
  return { ...config, warehouse: absoluteWarehouseUrl(config.warehouse) };
}

/** A warehouse with no tables, or whose tables are all empty, has nothing to discover: say so instead of running. */
async function assertWarehouseHasRows(runtime: Runtime): Promise<void> {
  const { warehouse } = runtime;
  const tables = warehouse.describeCatalog
    ? await warehouse.describeCatalog()
    : await Promise.all((await warehouse.listTables()).map((table) => warehouse.describeTable(table)));
  if (tables.length === 0) {
    throw new ValidationError(
      `the warehouse ${warehouse.description} has no tables: there is nothing to discover. Load data into it first (or point --warehouse at another one)`,
      [{ path: 'warehouse', message: 'no tables' }],
    );
  }
  if (tables.every((table) => table.rowCount === 0)) {
    const names = tables.slice(0, 5).map((table) => table.qualified);
    throw new ValidationError(
      `the warehouse ${warehouse.description} has ${tables.length} table(s) (${names.join(', ')}${tables.length > names.length ? ', …' : ''}) and every one is empty: there is nothing to discover. Load rows first`,
      [{ path: 'warehouse', message: 'every table is empty' }],
    );
  }
}

/** The shipped pack whose areas the warehouse's tables match, else the general pack; says which and why. */
async function packForWarehouse(runtime: Runtime, notice: (line: string) => void): Promise<string> {
  const [{ GENERAL_PACK_SLUG, choosePackForTables }, { loadPacks }, { discoverSchema }] = await Promise.all([
    import('../discovery/packs/generation/index.js'),
    import('../discovery/packs/pack-loader.js'),
    import('../schema/index.js'),
  ]);
  const tables = await discoverSchema(runtime.warehouse, {
    onTableError: (table, error) => runtime.logger.warn({ table: `${table.schema}.${table.name}`, error: error.message }, 'table skipped'),
  });
  const choice = choosePackForTables(
    tables,
    loadPacks(runtime.packs, { includeHidden: runtime.config.enableSystemTestPack }),
    GENERAL_PACK_SLUG,
  );
  const best = choice.scores[0];
  const bestText = best ? `best: ${best.slug}, ${best.matchedAreas} of ${best.areas} areas` : 'no domain packs';
  notice(
    choice.fallback
      ? `no --pack given and no domain pack matches this warehouse (${bestText}): using the general pack "${GENERAL_PACK_SLUG}"`
      : `no --pack given: using the "${choice.slug}" pack (${best?.matchedAreas} of ${best?.areas} of its areas match the warehouse's tables)`,
  );
  return choice.slug;
}

function leaseDir(runtime: Pick<Runtime, 'config'>): string {
  return leaseDirOf(runtime.config.dataDir);
}

async function assertNoRunInProgress(runtime: Runtime, projectId: string): Promise<void> {
  const active = (await runtime.store.listRuns(projectId, { limit: 20 })).find((run) => !isTerminal(run.status));
  if (!active) return;
  const lease = await readRunLease(leaseDir(runtime), active.id);
  const owner = lease ? ` by pid ${lease.pid} on ${lease.host} (${lease.holder === 'cli' ? '`assay run`' : '`assay api`'})` : '';
  throw new ConflictError(
    `project ${projectId} already has run ${active.id} in progress${owner}: wait for it, or stop it with \`assay runs cancel ${active.id}\``,
    { runId: active.id },
  );
}

interface ResolvedRequest {
  project: Project;
  pack: string;
  category?: string | undefined;
  areas: string[];
}

/** Every check of a new run that needs the runtime, in the order a person would want to hear about problems. */
async function resolveRequest(runtime: Runtime, request: DiscoveryRequest, config: AssayConfig): Promise<ResolvedRequest> {
  const notice = request.onNotice ?? ((line: string) => process.stdout.write(`${line}\n`));
  let packRef: string;
  if (request.pack === undefined) {
    await assertWarehouseHasRows(runtime);
    packRef = await packForWarehouse(runtime, notice);
  } else {
    // a pack directory is recorded by its absolute path
    packRef = isPackPath(request.pack) ? resolve(request.pack) : request.pack;
  }
  const pack = runtime.loadPack(packRef);
  const requestedAreas = request.areas && request.areas.length > 0 ? request.areas : undefined;
  const areas = selectAreas(resolveAreas(pack, request.category), requestedAreas, pack.slug);
  if (request.pack !== undefined) await assertWarehouseHasRows(runtime);

  await settleInterruptedRuns(runtime);
  const target = { warehouse: warehouseIdentity(config.warehouse), pack: packRef };
  const now = runtime.now().toISOString();
  let existing: Project | null | undefined;
  let projectId = request.projectId;
  if (projectId === undefined) {
    existing = findProjectFor(await runtime.store.listProjects(), target);
    projectId = existing?.id ?? newProjectId(pack.slug, target);
    notice(
      existing
        ? `project ${projectId} (${target.warehouse}, pack ${pack.slug})`
        : `new project ${projectId} (${target.warehouse}, pack ${pack.slug})`,
    );
  } else {
    const parsedId = projectSchema.shape.id.safeParse(projectId);
    if (!parsedId.success)
      throw new ValidationError(`--project "${projectId}": ${parsedId.error.issues[0]?.message ?? 'not a valid id'}`, [
        { path: '--project', message: 'invalid id' },
      ]);
    existing = await runtime.store.getProject(projectId);
  }
  if (existing) assertProjectTarget(existing, target);
  await assertNoRunInProgress(runtime, projectId);
  const project = projectSchema.parse({
    ...(existing ?? { created_at: now, profile: {} }),
    id: projectId,
    name: existing?.name ?? request.projectName ?? `${pack.slug} on ${warehouseStem(target.warehouse)}`,
    domain: packRef,
    ...(request.category ? { category: request.category } : {}),
    // never store credentials in the project document; the schema cache key ignores them anyway
    warehouse: { ...(existing?.warehouse ?? {}), url: redactUrl(config.warehouse) },
    llm: config.llm,
    embedder: config.embedder,
    updated_at: now,
  });
  return {
    project,
    pack: packRef,
    category: request.category,
    areas: requestedAreas ? areas.map((area) => area.id) : [],
  };
}

/**
 * Drives a created (or reopened) run to its end in this process: lease, progress, signals, artefacts.
 * The first SIGINT/SIGTERM/SIGHUP marks the run cancelled and lets the runner stop at its next check
 * (the steps stored so far are kept); a second one ends the process at once.
 */
async function driveRun(
  runtime: Runtime,
  runId: string,
  options: { outDir: string; quiet?: boolean | undefined },
): Promise<DiscoveryOutcome> {
  const lease = await holdRunLease({
    leaseDir: leaseDir(runtime),
    runId,
    kind: 'cli',
    onHeartbeatError: (error) => runtime.logger.warn({ runId, err: describeError(error) }, 'could not refresh the run lease'),
  });
  const controller = new AbortController();
  const progress = createProgressDisplay({ store: runtime.store, runId, ...(options.quiet ? { quiet: true } : {}) });
  let interruptedBy: InterruptSignal | undefined;
  const stopListening = onInterrupt({
    first(signal) {
      interruptedBy = signal;
      progress.notice(
        `${describeSignal(signal)}: cancelling run ${runId}; the steps stored so far are kept (a second signal stops at once)`,
      );
      const reason = `cancelled: the process received ${signal}`;
      void runtime.store
        .updateRun(runId, (current) =>
          isTerminal(current.status) ? current : { ...current, status: 'cancelled', error: current.error ?? reason },
        )
        .catch((error: unknown) => runtime.logger.warn({ runId, err: describeError(error) }, 'could not mark the run cancelled'))
        .finally(() => controller.abort(new CancelledError(reason)));
    },
    again(signal) {
      // the lease stays: the next command that looks finds the process gone and marks the run interrupted
      lease.abandon();
      progress.stop();
      process.stderr.write(
        `${describeSignal(signal)} again: stopping at once; run ${runId} stays resumable (assay runs resume ${runId})\n`,
      );
    },
  });
  try {
    let result: DiscoveryResult;
    try {
      result = await runDiscoveryLocally(runtime, runId, {
        concurrency: runtime.config.run.concurrency,
        onEvent: progress.onEvent,
        signal: controller.signal,
      });
    } finally {
      progress.stop();
    }
    const outputDir = join(options.outDir, runId);
    const reportPath = await writeRunArtefacts(runtime, runId, outputDir);
    const run = await runtime.store.getRun(runId);
    if (!run) throw new NotFoundError(`run ${runId} disappeared from the store while it ran`, { runId });
    return { run, result, outputDir, reportPath, ...(interruptedBy ? { interruptedBy } : {}) };
  } finally {
    stopListening();
    await lease.release();
  }
}

export async function runDiscovery(config: AssayConfig, request: DiscoveryRequest, logger: Logger): Promise<DiscoveryOutcome> {
  assertStepBounds(request.maxSteps, request.minSteps, { maxSteps: '--max-steps', minSteps: '--min-steps' });
  const outDir = await checkOutputDir(request.outDir);
  const runConfig = withAbsoluteWarehouse(config);
  // before any SDK client exists: the AWS SDK decides on its Node-version notice when its first client is built
  if (request.quiet) silenceSdkNotices();
  const runtime = await composeRuntime(runConfig, { logger });
  try {
    const resolved = await resolveRequest(runtime, request, runConfig);
    const runId = newRunId(runtime.now());
    // the project is written only now, with the run: a refused run leaves it as it was
    await runtime.store.upsertProject(resolved.project);
    const run = await createRun(
      runtime.store,
      resolved.project,
      {
        maxSteps: request.maxSteps,
        minSteps: request.minSteps,
        areas: resolved.areas,
        llm: runConfig.llm,
        pack: resolved.pack,
        category: resolved.category,
        analysisBudgetTokens: runConfig.run.analysisBudgetTokens,
      },
      runtime.now(),
      runId,
    );
    return await driveRun(runtime, run.id, { outDir, quiet: request.quiet });
  } finally {
    await runtime.close();
  }
}

export interface ResumeRequest {
  runId: string;
  outDir: string;
  /** The warehouse URL again, when the stored one had its password removed; must be the project's warehouse. */
  warehouse?: string | undefined;
  quiet?: boolean;
}

/**
 * The config a run is resumed with: the project's warehouse (or `--warehouse`, which must be the
 * same one) and the run's model. Read from the store before the runtime exists.
 */
async function resumeConfig(config: AssayConfig, request: ResumeRequest): Promise<{ config: AssayConfig; runId: string }> {
  const { openRunStore } = await import('../store/index.js');
  const store = await openRunStore(config.store, { dataDir: config.dataDir });
  try {
    const run = request.runId === 'latest' ? await latestRun(store) : await store.getRun(request.runId);
    if (!run) throw new NotFoundError(`run ${request.runId} does not exist (assay runs list shows the runs)`, { runId: request.runId });
    const project = await store.getProject(run.project_id);
    if (!project) throw new NotFoundError(`run ${run.id} belongs to project ${run.project_id}, which no longer exists`, { runId: run.id });
    let warehouse = project.warehouse.url;
    if (request.warehouse !== undefined) {
      const given = absoluteWarehouseUrl(request.warehouse);
      if (warehouseIdentity(given) !== warehouseIdentity(project.warehouse.url)) {
        throw new ConflictError(
          `run ${run.id} explores ${warehouseIdentity(project.warehouse.url)}; --warehouse names ${warehouseIdentity(given)}: a run is resumed on its own warehouse`,
          { runId: run.id },
        );
      }
      warehouse = given;
    } else if (warehouse.includes('***')) {
      throw new ValidationError(
        `run ${run.id} explores ${warehouseIdentity(warehouse)}, whose password is not stored: give the URL again with --warehouse`,
        [{ path: '--warehouse', message: 'the warehouse password is needed' }],
      );
    }
    return { config: withAbsoluteWarehouse({ ...config, warehouse, llm: run.settings.llm }), runId: run.id };
  } finally {
    await store.close();
  }
}

/** `assay runs resume`: reopens a cancelled, failed or partial run and drives it on from its stored work. */
export async function resumeDiscovery(config: AssayConfig, request: ResumeRequest, logger: Logger): Promise<DiscoveryOutcome> {
  const outDir = await checkOutputDir(request.outDir);
  const resumed = await resumeConfig(config, request);
  const runId = resumed.runId;
  const runtime = await composeRuntime(resumed.config, { logger });
  try {
    // a run whose `assay run` died is marked interrupted here; a lease still there has a live holder (or is the API's)
    await settleInterruptedRuns(runtime);
    const lease = await readRunLease(leaseDir(runtime), runId);
    if (lease) {
      throw new ConflictError(
        `run ${runId} is being run by pid ${lease.pid} on ${lease.host}: wait for it, or stop it with \`assay runs cancel ${runId}\``,
        { runId: runId },
      );
    }
    const run = await runtime.store.getRun(runId);
    if (!run) throw new NotFoundError(`run ${runId} does not exist`, { runId: runId });
    assertResumable(run);
    await assertNoRunInProgress(runtime, run.project_id);
    await runtime.store.updateRun(run.id, (current) => reopenRun(current, runtime.now()));
    return await driveRun(runtime, run.id, { outDir, quiet: request.quiet });
  } finally {
    await runtime.close();
  }
}
