import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRun } from '../../../src/discovery/phases/create-run.js';
import { exploreStep } from '../../../src/discovery/phases/explore-step.js';
import { prepareRun } from '../../../src/discovery/phases/prepare.js';
import type { DiscoveryDeps } from '../../../src/discovery/context.js';
import { type AssayError, ConfigError, ConflictError, WarehouseError } from '../../../src/errors/index.js';
import { MAX_RUN_RECOVERIES } from '../../../src/discovery/pipeline/index.js';
import { isLeaseOrphaned, startLocalRunLauncher, type LocalRunLauncher, type RunLease } from '../../../src/fleet/local/launcher.js';
import type { LlmRequest } from '../../../src/llm/port.js';
import { type ProjectClients, ProjectClientsUnavailableError } from '../../../src/project-clients.js';
import { createHarness, type Harness } from '../../support/engine-harness.js';
import { QUERY_DEVICE, QUERY_REVENUE, phaseOf, scriptedBrain } from '../discovery/scripted-brain.js';

const SELF = { instanceId: 'me', pid: 4242, host: 'node-a' };
const NOW = Date.parse('2026-11-23T10:00:00.000Z');
const lease = (overrides: Partial<RunLease>): RunLease => ({
  run_id: 'run-1',
  instance_id: 'other',
  pid: 777,
  host: 'node-a',
  heartbeat_at: new Date(NOW - 1_000).toISOString(),
  ...overrides,
});

describe('isLeaseOrphaned', () => {
  const alive = () => true;
  const dead = () => false;
  it.each([
    ['our own live lease', lease({ instance_id: 'me', heartbeat_at: '2000-01-01T00:00:00Z' }), dead, false],
    ['a fresh lease of a live process on this host', lease({}), alive, false],
    ['a fresh lease of a dead process on this host', lease({}), dead, true],
    ['our pid under another instance id (a container restart)', lease({ pid: 4242 }), alive, true],
    ['a fresh lease from another host (its pid cannot be probed)', lease({ host: 'node-b' }), dead, false],
    ['a stale lease from another host', lease({ host: 'node-b', heartbeat_at: new Date(NOW - 60_000).toISOString() }), alive, true],
    ['an unreadable heartbeat', lease({ host: 'node-b', heartbeat_at: 'yesterday' }), alive, true],
  ])('%s → %s', (_name, candidate, probe, expected) => {
    expect(isLeaseOrphaned(candidate, SELF, NOW, 30_000, probe)).toBe(expected);
  });
});

/** A brain that answers like the scripted one but holds exploration step `holdAt` until released. */
function gatedBrain(holdAt: number) {
  const scripted = scriptedBrain({ exploration: { 1: QUERY_DEVICE, 2: QUERY_REVENUE } });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let reached!: () => void;
  const holding = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const brain = async (request: LlmRequest): Promise<string> => {
    const last = request.messages.at(-1)?.content ?? '';
    if (
      phaseOf(request) === 'exploration' &&
      (holdAt === 1 ? !/Steps used/.test(last) : new RegExp(`Steps used: ${holdAt - 1} of`).test(last))
    ) {
      reached();
      await gate;
    }
    return scripted.brain(request);
  };
  return { brain, release, holding, calls: scripted.calls };
}

describe('the local run launcher', () => {
  let harness: Harness;
  let launcher: LocalRunLauncher | undefined;
  afterEach(async () => {
    await launcher?.close();
    launcher = undefined;
    await harness.close();
  });

  const leaseFile = (runId: string) => join(harness.deps.config.dataDir, 'local-runs', `${runId}.json`);

  describe('when a run is launched', () => {
    it('runs it to a result in the background, holding a lease until it settles', async () => {
      const gated = gatedBrain(2);
      harness = await createHarness(gated.brain);
      const settled: string[] = [];
      launcher = await startLocalRunLauncher({ runtime: harness.deps, onRunSettled: (runId) => settled.push(runId) });
      const run = await harness.newRun({ maxSteps: 3 });
      await launcher.launch(run.id);
      await launcher.launch(run.id); // idempotent while in flight
      await gated.holding;
      expect(JSON.parse(readFileSync(leaseFile(run.id), 'utf8'))).toMatchObject({
        run_id: run.id,
        pid: process.pid,
        host: hostname(),
      });
      // the lease names its holder and nothing else: recoveries are counted on the run
      expect(Object.keys(JSON.parse(readFileSync(leaseFile(run.id), 'utf8'))).sort()).toEqual([
        'heartbeat_at',
        'holder',
        'host',
        'instance_id',
        'pid',
        'run_id',
      ]);
      expect(launcher.inFlight()).toEqual([run.id]);
      gated.release();
      await launcher.settled(run.id);
      const stored = await harness.deps.store.getRun(run.id);
      expect(stored?.status).toBe('completed');
      expect(await harness.deps.store.getResult(run.id)).not.toBeNull();
      expect(existsSync(leaseFile(run.id))).toBe(false);
      expect(settled).toEqual([run.id]);
      expect(gated.calls.recommendations).toBe(1);
    });
  });

  describe("when the run's project connections cannot be opened", () => {
    /** Clients whose first `failures` openings fail with `cause`, then serve the harness's ports. */
    function failingClients(failures: number, cause: AssayError) {
      let calls = 0;
      const clients = {
        async withRun<T>(_runId: string, work: (deps: DiscoveryDeps) => Promise<T>): Promise<T> {
          calls += 1;
          if (calls <= failures) throw new ProjectClientsUnavailableError('shop', cause);
          return work(harness.deps);
        },
      };
      return { clients: clients as Pick<ProjectClients, 'withRun'>, calls: () => calls };
    }

    it('ends the run failed at the first attempt when the classifier calls the error final (a missing secret)', async () => {
      harness = await createHarness(scriptedBrain({ exploration: { 1: QUERY_DEVICE } }).brain);
      const failing = failingClients(Number.POSITIVE_INFINITY, new ConfigError('secret secret:SHOP_PG is not set'));
      launcher = await startLocalRunLauncher({ runtime: harness.deps, clients: failing.clients, sweepIntervalMs: 0 });
      const run = await harness.newRun({ maxSteps: 2 });
      await launcher.launch(run.id);
      await launcher.settled(run.id);
      expect(await harness.deps.store.getRun(run.id)).toMatchObject({ status: 'failed' });
      expect((await harness.deps.store.getRun(run.id))?.error).toMatch(/could not be opened: secret secret:SHOP_PG is not set/);
      expect(failing.calls()).toBe(1);
    });

    it('tries again, as a fleet job would, when the error is retryable (an unreachable warehouse), and completes', async () => {
      harness = await createHarness(scriptedBrain({ exploration: { 1: QUERY_DEVICE } }).brain);
      const failing = failingClients(1, new WarehouseError('connect ECONNREFUSED 127.0.0.1:5432'));
      launcher = await startLocalRunLauncher({ runtime: harness.deps, clients: failing.clients, sweepIntervalMs: 0 });
      const run = await harness.newRun({ maxSteps: 2 });
      await launcher.launch(run.id);
      await launcher.settled(run.id);
      expect((await harness.deps.store.getRun(run.id))?.status).toBe('completed');
      expect(failing.calls()).toBe(2);
    });
  });

  describe('when a running run is cancelled', () => {
    it('ends it cancelled with a result, and refuses to cancel it again', async () => {
      const gated = gatedBrain(2);
      harness = await createHarness(gated.brain);
      launcher = await startLocalRunLauncher({ runtime: harness.deps });
      const run = await harness.newRun({ maxSteps: 3 });
      await launcher.launch(run.id);
      await gated.holding;
      await launcher.cancel(run.id);
      gated.release();
      await launcher.settled(run.id);
      const stored = await harness.deps.store.getRun(run.id);
      expect(stored).toMatchObject({ status: 'cancelled', error: 'cancelled by request' });
      expect((await harness.deps.store.getResult(run.id))?.run_type).toBe('cancelled');
      expect(gated.calls.analysis).toBe(0);
      await expect(launcher.cancel(run.id)).rejects.toBeInstanceOf(ConflictError);
    });
  });

  describe('when the launcher is closed with a run in flight', () => {
    it('cancels the run with an error that says the API shut down', async () => {
      const gated = gatedBrain(1);
      harness = await createHarness(gated.brain);
      launcher = await startLocalRunLauncher({ runtime: harness.deps });
      const run = await harness.newRun({ maxSteps: 3 });
      await launcher.launch(run.id);
      await gated.holding;
      const closing = launcher.close();
      gated.release();
      await closing;
      launcher = undefined;
      expect(await harness.deps.store.getRun(run.id)).toMatchObject({ status: 'cancelled', error: expect.stringMatching(/API shut down/) });
      expect(existsSync(leaseFile(run.id))).toBe(false);
    });
  });

  describe('when it starts after a process that owned runs died', () => {
    const deadOwner = (runId: string): RunLease => ({
      run_id: runId,
      instance_id: 'gone',
      pid: 999_999,
      host: hostname(),
      heartbeat_at: new Date().toISOString(),
    });
    const writeLease = (value: RunLease) => {
      mkdirSync(join(harness.deps.config.dataDir, 'local-runs'), { recursive: true });
      writeFileSync(leaseFile(value.run_id), JSON.stringify(value));
    };

    it('resumes an orphaned run, keeping the steps already made, and counts the recovery on the run', async () => {
      const { brain, calls } = scriptedBrain({ exploration: { 1: QUERY_DEVICE, 2: QUERY_REVENUE } });
      harness = await createHarness(brain);
      const run = await harness.newRun({ maxSteps: 3 });
      // the dead process got as far as step 1
      await prepareRun(harness.deps, run.id);
      await exploreStep(harness.deps, run.id, 1);
      expect(calls.exploration).toBe(1);
      // a lease from before recoveries were counted on the run: its own count is ignored
      writeLease({ ...deadOwner(run.id), resumes: 2 } as RunLease);

      launcher = await startLocalRunLauncher({ runtime: harness.deps, isPidAlive: () => false });
      expect(launcher.inFlight()).toEqual([run.id]);
      await launcher.settled(run.id);
      const stored = await harness.deps.store.getRun(run.id);
      expect(stored?.status).toBe('completed');
      expect(stored?.recoveries).toBe(1);
      const steps = await harness.deps.store.listSteps(run.id);
      expect(steps.map((step) => step.step)).toEqual([1, 2, 3]);
      // step 1 was not asked for again: steps 2 and 3 only
      expect(calls.exploration).toBe(3);
    });

    it('leaves runs without a lease, and leases of live processes, alone', async () => {
      harness = await createHarness(scriptedBrain({ exploration: {} }).brain);
      const unowned = await harness.newRun();
      const otherProject = { ...harness.project, id: 'shop-2' };
      await harness.deps.store.upsertProject(otherProject);
      const owned = await createRun(
        harness.deps.store,
        otherProject,
        { maxSteps: 2, minSteps: 0, llm: 'offline:analyst', pack: 'ecommerce', analysisBudgetTokens: 200_000 },
        new Date(),
      );
      writeLease({ ...deadOwner(owned.id), host: 'another-node' });

      launcher = await startLocalRunLauncher({ runtime: harness.deps, isPidAlive: () => false });
      expect(launcher.inFlight()).toEqual([]);
      expect((await harness.deps.store.getRun(unowned.id))?.status).toBe('pending');
      expect((await harness.deps.store.getRun(owned.id))?.status).toBe('pending');
      expect(existsSync(leaseFile(owned.id))).toBe(true);
    });

    it('fails a run whose recoveries are used up, naming the process that held it, and releases leases of settled runs', async () => {
      harness = await createHarness(scriptedBrain({ exploration: {} }).brain);
      const stuck = await harness.newRun();
      // taken up again MAX_RUN_RECOVERIES times already (by this launcher, or by the runner's own recoveries)
      await harness.deps.store.updateRun(stuck.id, (current) => ({ ...current, recoveries: MAX_RUN_RECOVERIES }));
      writeLease(deadOwner(stuck.id));
      launcher = await startLocalRunLauncher({ runtime: harness.deps, isPidAlive: () => false });
      const stored = await harness.deps.store.getRun(stuck.id);
      expect(stored).toMatchObject({
        status: 'failed',
        recoveries: MAX_RUN_RECOVERIES,
        error: `the run could not be recovered after ${MAX_RUN_RECOVERIES} attempts: its runner (process 999999 on ${hostname()}) stopped while the run was in flight`,
      });
      expect(existsSync(leaseFile(stuck.id))).toBe(false);

      writeLease(deadOwner(stuck.id));
      expect(await launcher.recoverOrphans()).toEqual([{ runId: stuck.id, action: 'released', reason: 'already failed' }]);
      expect(existsSync(leaseFile(stuck.id))).toBe(false);
    });
  });
});
