/**
 * `assay runs list|show|cancel`: the stored runs, as a person asks about them. Every command first
 * marks runs whose `assay run` process is gone (src/fleet/local/interrupted-run.ts), so a dead run is
 * never listed as running. They open the store on a bookkeeping runtime: an in-memory warehouse and
 * the offline model, since listing or cancelling a run must not need its warehouse or model keys.
 */
import { rm } from 'node:fs/promises';
import { composeRuntime, type Runtime } from '../composition.js';
import type { AssayConfig } from '../config/index.js';
import { finalizeRun } from '../discovery/phases/finalize.js';
import { isTerminal, type Run } from '../domain/index.js';
import { AssayError, ConflictError, NotFoundError } from '../errors/index.js';
import {
  LEASE_STALE_AFTER_MS,
  currentHolder,
  holderKindOf,
  isLeaseOrphaned,
  isPidAlive,
  leaseDirOf,
  leasePath,
  listLeaseFiles,
  readRunLease,
  type RunLease,
} from '../fleet/local/run-lease.js';
import type { Logger } from '../logging/index.js';
import { latestRun } from '../runs/latest-run.js';
import { whyNotResumable } from '../runs/reopen-run.js';
import { settleInterruptedRuns } from './interrupted-runs.js';
import { renderTable } from './output.js';
import { runStatusLabel } from './run-summary.js';

/** The runtime of the `runs` commands: the configured store and vector index, nothing that needs a warehouse or a key. */
async function openBookkeeping(config: AssayConfig, logger: Logger): Promise<Runtime> {
  const { fastLlm: _fast, ...rest } = config;
  const runtime = await composeRuntime(
    { ...rest, warehouse: 'duckdb::memory:', warehouseFiles: {}, llm: 'offline:analyst', embedder: 'local' },
    { logger },
  );
  try {
    await settleInterruptedRuns(runtime);
  } catch (error) {
    await runtime.close();
    throw error;
  }
  return runtime;
}

/** The process holding the embedded store, when that is why it cannot be opened. */
function storeHolder(error: unknown): number | undefined {
  const holder = error instanceof AssayError ? error.details?.storeHeldBy : undefined;
  return typeof holder === 'number' ? holder : undefined;
}

async function liveLeases(config: AssayConfig): Promise<RunLease[]> {
  const dir = leaseDirOf(config.dataDir);
  const self = currentHolder();
  const leases = await Promise.all((await listLeaseFiles(dir)).map((name) => readRunLease(dir, name.replace(/\.json$/, ''))));
  return leases.filter(
    (lease): lease is RunLease => lease !== null && !isLeaseOrphaned(lease, self, Date.now(), LEASE_STALE_AFTER_MS, isPidAlive),
  );
}

function ownerText(lease: RunLease): string {
  return `${holderKindOf(lease) === 'cli' ? '`assay run`' : '`assay api`'}, pid ${lease.pid} on ${lease.host}`;
}

/** Opens the bookkeeping runtime; when another process holds the embedded store, says which runs it is driving instead. */
async function withBookkeeping<T>(config: AssayConfig, logger: Logger, work: (runtime: Runtime) => Promise<T>): Promise<T> {
  let runtime: Runtime;
  try {
    runtime = await openBookkeeping(config, logger);
  } catch (error) {
    const holder = storeHolder(error);
    if (holder === undefined) throw error;
    const running = (await liveLeases(config)).filter((lease) => lease.pid === holder);
    const runs = running.length > 0 ? `; it is running ${running.map((lease) => `${lease.run_id} (${ownerText(lease)})`).join(', ')}` : '';
    throw new ConflictError(
      `the embedded store in ${config.dataDir} is in use by process ${holder}${runs}. Its runs show here once it ends; stop a run with \`assay runs cancel RUN_ID\`, or use a shared store (ASSAY_STORE=postgres://…) to look while it runs`,
      { storeHeldBy: holder },
    );
  }
  try {
    return await work(runtime);
  } finally {
    await runtime.close();
  }
}

function shortTime(iso: string | undefined): string {
  return iso ? iso.replace('T', ' ').slice(0, 16) : '';
}

function insightsOf(run: Run): number {
  return run.areas.reduce((sum, area) => sum + area.insights.length, 0);
}

export async function listRunsCommand(
  config: AssayConfig,
  logger: Logger,
  options: { project?: string | undefined; limit: number; json?: boolean | undefined },
): Promise<void> {
  await withBookkeeping(config, logger, async (runtime) => {
    const projects = options.project ? [options.project] : (await runtime.store.listProjects()).map((project) => project.id);
    if (options.project && !(await runtime.store.getProject(options.project)))
      throw new NotFoundError(`project ${options.project} does not exist`, { projectId: options.project });
    const runs = (await Promise.all(projects.map((id) => runtime.store.listRuns(id, { limit: options.limit }))))
      .flat()
      .sort((left, right) => right.created_at.localeCompare(left.created_at))
      .slice(0, options.limit);
    if (options.json) {
      process.stdout.write(
        `${JSON.stringify(
          runs.map((run) => ({
            id: run.id,
            project_id: run.project_id,
            status: run.status,
            run_type: run.run_type ?? null,
            steps_completed: run.steps_completed,
            max_steps: run.settings.max_steps,
            insights: insightsOf(run),
            created_at: run.created_at,
            completed_at: run.completed_at ?? null,
            error: run.error ?? null,
          })),
          null,
          2,
        )}\n`,
      );
      return;
    }
    if (runs.length === 0) {
      process.stdout.write(
        `no runs${options.project ? ` in project ${options.project}` : ''} yet: start one with \`assay run\` (or \`assay demo\`)\n`,
      );
      return;
    }
    process.stdout.write(
      `${renderTable(
        ['run', 'project', 'status', 'steps', 'insights', 'created'],
        runs.map((run) => [
          run.id,
          run.project_id,
          runStatusLabel(run),
          `${run.steps_completed}/${run.settings.max_steps}`,
          insightsOf(run),
          shortTime(run.created_at),
        ]),
      )}\n`,
    );
  });
}

/** `latest` names the newest run. */
async function requireRunRecord(runtime: Runtime, runId: string): Promise<Run> {
  if (runId === 'latest') {
    const latest = await latestRun(runtime.store);
    if (!latest) throw new NotFoundError('there are no runs yet: start one with `assay run` (or `assay demo`)');
    return latest;
  }
  const run = await runtime.store.getRun(runId);
  if (!run) throw new NotFoundError(`run ${runId} does not exist (assay runs list shows the runs)`, { runId });
  return run;
}

export async function showRunCommand(
  config: AssayConfig,
  logger: Logger,
  runId: string,
  options: { json?: boolean | undefined },
): Promise<void> {
  await withBookkeeping(config, logger, async (runtime) => {
    const run = await requireRunRecord(runtime, runId);
    if (options.json) {
      process.stdout.write(`${JSON.stringify(run, null, 2)}\n`);
      return;
    }
    const lease = await readRunLease(leaseDirOf(config.dataDir), run.id);
    const facts: Array<[string, string]> = [
      ['run', run.id],
      ['project', run.project_id],
      ['status', runStatusLabel(run)],
      ['phase', isTerminal(run.status) ? run.phase : `${run.phase} (${run.phase_detail || 'in progress'}), ${Math.round(run.progress)} %`],
      ['pack', run.settings.category ? `${run.settings.pack}:${run.settings.category}` : run.settings.pack],
      ['model', run.settings.llm],
      [
        'steps',
        `${run.steps_completed} of ${run.settings.max_steps}${run.exploration_done_reason ? ` (exploration ended: ${run.exploration_done_reason})` : ''}`,
      ],
      ['queries', `${run.counters.total_queries} (${run.counters.successful_queries} ok, ${run.counters.failed_queries} failed)`],
      ['insights', String(insightsOf(run))],
      ['recommendations', String(run.recommendations.length)],
      ['created', shortTime(run.created_at)],
      ['completed', shortTime(run.completed_at)],
      ...(lease && !isTerminal(run.status) ? [['driven by', ownerText(lease)] as [string, string]] : []),
      ...(run.error ? [['error', run.error] as [string, string]] : []),
    ];
    const width = Math.max(...facts.map(([name]) => name.length));
    process.stdout.write(`${facts.map(([name, value]) => `${name.padEnd(width)}  ${value}`).join('\n')}\n`);
    if (run.areas.length > 0)
      process.stdout.write(
        `${renderTable(
          ['area', 'status', 'insights', 'note'],
          run.areas.map((area) => [area.area_id, area.status, area.insights.length, area.error ?? '']),
        )}\n`,
      );
    if (isTerminal(run.status)) {
      const why = whyNotResumable(run);
      process.stdout.write(why === undefined ? `resume it: assay runs resume ${run.id}\n` : '');
      process.stdout.write(`report: assay report ${run.id}\n`);
    } else process.stdout.write(`stop it: assay runs cancel ${run.id}\n`);
  });
}

/** How long `runs cancel` waits for a signalled `assay run` to stop cleanly before saying so. */
const CANCEL_WAIT_MS = 60_000;

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isPidAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

/**
 * Cancels a run wherever it is driven: an `assay run` on this host gets SIGTERM (it cancels cleanly,
 * keeps its steps, frees the project) and is waited for; a run of another process or of the fleet is
 * marked cancelled in the store, which every stage checks before it spends tokens; a run whose
 * process is gone is finalized as cancelled here.
 */
export async function cancelRunCommand(config: AssayConfig, logger: Logger, runId: string): Promise<void> {
  const lease = await readRunLease(leaseDirOf(config.dataDir), runId);
  const self = currentHolder();
  if (lease && !isLeaseOrphaned(lease, self, Date.now(), LEASE_STALE_AFTER_MS, isPidAlive) && lease.host === self.host) {
    if (holderKindOf(lease) === 'api' && config.store === 'embedded') {
      throw new ConflictError(
        `run ${runId} is executed by \`assay api\` (pid ${lease.pid}), which holds the embedded store: cancel it through the API (DELETE /api/v1/runs/${runId})`,
        { runId },
      );
    }
    if (holderKindOf(lease) === 'cli') {
      process.stdout.write(`asking ${ownerText(lease)} to stop run ${runId}…\n`);
      process.kill(lease.pid, 'SIGTERM');
      if (!(await waitForExit(lease.pid, CANCEL_WAIT_MS))) {
        throw new ConflictError(
          `pid ${lease.pid} did not stop within ${CANCEL_WAIT_MS / 1000} s; it may be finishing a long model call. Run the command again, or end the process (kill ${lease.pid}) and the run is marked interrupted`,
          { runId },
        );
      }
    }
  }
  await withBookkeeping(config, logger, async (runtime) => {
    const run = await requireRunRecord(runtime, runId);
    if (isTerminal(run.status)) {
      const resumable = whyNotResumable(run) === undefined;
      process.stdout.write(
        `run ${run.id} is ${runStatusLabel(run)}${run.error ? ` (${run.error})` : ''}${resumable ? `; resume it with \`assay runs resume ${run.id}\`` : ''}\n`,
      );
      return;
    }
    const reason = 'cancelled with `assay runs cancel`';
    await runtime.store.updateRun(run.id, (current) =>
      isTerminal(current.status) ? current : { ...current, status: 'cancelled', error: current.error ?? reason },
    );
    const driver = await readRunLease(leaseDirOf(config.dataDir), run.id);
    const driverAlive = driver !== null && !isLeaseOrphaned(driver, currentHolder(), Date.now(), LEASE_STALE_AFTER_MS, isPidAlive);
    if (driverAlive || (driver === null && config.store !== 'embedded')) {
      // its driver (another host, the API, the fleet) sees the status before its next stage and finalizes it
      process.stdout.write(`run ${run.id} is marked cancelled; its runner stops before its next step\n`);
      return;
    }
    await finalizeRun(runtime, run.id);
    if (driver) await rm(leasePath(leaseDirOf(config.dataDir), run.id), { force: true });
    process.stdout.write(
      `run ${run.id} cancelled; its ${run.steps_completed} step(s) are kept: resume it with \`assay runs resume ${run.id}\`\n`,
    );
  });
}
