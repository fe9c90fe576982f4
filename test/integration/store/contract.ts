import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RunStore } from '../../../src/store/index.js';
import { runSchema, type Run } from '../../../src/domain/index.js';
import { realisticLlmCall, realisticRun, realisticStep } from '../../support/realistic-run.js';
import { applyEdits, edit } from '../../unit/store/mutations.js';

const now = '2026-11-23T09:00:00.000Z';

export function makeRun(id: string, projectId = 'shop', createdAt = now): Run {
  return runSchema.parse({
    id,
    project_id: projectId,
    status: 'pending',
    phase: 'prepare',
    settings: { max_steps: 5, min_steps: 0, llm: 'offline:analyst', pack: 'ecommerce', analysis_budget_tokens: 200_000 },
    created_at: createdAt,
    updated_at: createdAt,
  });
}

export interface ContractOptions {
  skipReason?: string;
  /**
   * Closes `store` and opens the same data afresh, as another process (or this one after a restart)
   * would: nothing the first kept in memory is shared.
   */
  reopen?: (store: RunStore) => Promise<RunStore>;
}

/** The behaviour every RunStore adapter must have. */
export function runStoreContract(name: string, open: () => Promise<RunStore>, options: ContractOptions = {}): void {
  describe.skipIf(options.skipReason !== undefined)(`RunStore contract: ${name}`, () => {
    const reopen = options.reopen;

    it.skipIf(reopen === undefined)('reads back, once opened afresh, exactly the run and steps that updates returned', async () => {
      if (!reopen) return;
      const store = await open();
      await store.createRun({ ...realisticRun('big'), status: 'pending', phase: 'prepare' });
      let last = await store.updateRun('big', (run) => ({ ...run, status: 'running', phase: 'exploration' }));
      for (let index = 0; index < 12; index++) {
        last = await store.updateRun('big', (run) => ({
          ...run,
          telemetry: { ...run.telemetry, llm_calls: [...run.telemetry.llm_calls, realisticLlmCall(1000 + index)] },
        }));
        await store.upsertStep(realisticStep('big', index + 1));
      }
      last = await store.updateRun('big', (run) => {
        const [first, ...rest] = run.areas;
        if (!first) throw new Error('the realistic run has areas');
        const insights = first.insights.map((insight, index) =>
          index === 1 && insight.validation ? { ...insight, validation: { ...insight.validation, status: 'rejected' as const } } : insight,
        );
        const { exploration_done_reason: _dropped, ...withoutReason } = run;
        return { ...withoutReason, phase: 'validation', areas: [{ ...first, insights }, ...rest.slice(0, -1)] };
      });
      await store.upsertStep({ ...realisticStep('big', 3), query_purpose: 'step 3 again' });
      const again = await reopen(store);
      expect(await again.getRun('big')).toEqual(last);
      expect(last.exploration_done_reason).toBeUndefined();
      const steps = await again.listSteps('big');
      expect(steps.map((step) => step.step)).toEqual(Array.from({ length: 12 }, (_, index) => index + 1));
      expect(steps[2]?.query_purpose).toBe('step 3 again');
      const finished = await again.updateRun('big', (run) => ({ ...run, status: 'completed', phase: 'complete' }));
      const third = await reopen(again);
      expect(await third.getRun('big')).toEqual(finished);
      expect((await third.listRuns(finished.project_id)).map((run) => run.id)).toEqual(['big']);
    });

    it.skipIf(reopen === undefined)('keeps any sequence of valid updates exactly, and no trace of refused ones', async () => {
      if (!reopen) return;
      let store = await open();
      let round = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(fc.array(edit, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }), async (updates) => {
          const id = `prop-${round++}`;
          let expected = await store.createRun(realisticRun(id));
          for (const edits of updates) {
            try {
              expected = await store.updateRun(id, (run) => applyEdits(run, edits));
            } catch (error) {
              // an edit the schema refuses changes nothing
              expect((error as Error).name).toBe('ZodError');
            }
          }
          expect(await store.getRun(id)).toEqual(expected);
          store = await reopen(store);
          expect(await store.getRun(id)).toEqual(expected);
        }),
        { numRuns: 15 },
      );
    });

    it('creates a run once and returns the stored one on a redelivered create', async () => {
      const store = await open();
      await store.createRun(makeRun('r1'));
      await store.updateRun('r1', (run) => ({ ...run, status: 'running' }));
      const again = await store.createRun(makeRun('r1'));
      expect(again.status).toBe('running');
    });

    it('serialises concurrent updates of one run without losing increments', async () => {
      const store = await open();
      await store.createRun(makeRun('r2'));
      await Promise.all(
        Array.from({ length: 25 }, () =>
          store.updateRun('r2', (run) => ({
            ...run,
            telemetry: { ...run.telemetry, schema_lookup_calls: run.telemetry.schema_lookup_calls + 1 },
          })),
        ),
      );
      expect((await store.getRun('r2'))?.telemetry.schema_lookup_calls).toBe(25);
    });

    it('fails clearly when updating a run that does not exist', async () => {
      const store = await open();
      await expect(store.updateRun('missing', (run) => run)).rejects.toThrow(/run missing does not exist/);
    });

    it('upserts steps by (run, step) and lists them in step order', async () => {
      const store = await open();
      await store.createRun(makeRun('r3'));
      for (const step of [3, 1, 2])
        await store.upsertStep({
          run_id: 'r3',
          step,
          action: 'query',
          timestamp: now,
          thinking: '',
          query_purpose: `p${step}`,
          fix_attempts: 0,
          fixed: false,
        });
      await store.upsertStep({
        run_id: 'r3',
        step: 2,
        action: 'error',
        timestamp: now,
        thinking: '',
        query_purpose: 'redo',
        fix_attempts: 0,
        fixed: false,
        error: 'x',
      });
      const steps = await store.listSteps('r3');
      expect(steps.map((s) => s.step)).toEqual([1, 2, 3]);
      expect(steps[1]?.query_purpose).toBe('redo');
    });

    it('lists runs newest first per project', async () => {
      const store = await open();
      await store.createRun(makeRun('old', 'p9', '2026-01-01T00:00:00.000Z'));
      await store.createRun(makeRun('new', 'p9', '2026-06-01T00:00:00.000Z'));
      await store.createRun(makeRun('other', 'p8'));
      expect((await store.listRuns('p9')).map((r) => r.id)).toEqual(['new', 'old']);
      expect((await store.listRuns('p9', { limit: 1 })).map((r) => r.id)).toEqual(['new']);
    });

    it('upserts feedback per target', async () => {
      const store = await open();
      const base = {
        id: 'f1',
        project_id: 'p7',
        run_id: 'r',
        target_type: 'insight' as const,
        target_id: 'churn-1',
        rating: 'like' as const,
        comment: '',
        created_at: now,
      };
      await store.upsertFeedback(base);
      await store.upsertFeedback({ ...base, id: 'f2', rating: 'dislike', comment: 'wrong cohort' });
      const feedback = await store.listFeedback('p7');
      expect(feedback).toHaveLength(1);
      expect(feedback[0]?.rating).toBe('dislike');
    });

    it('refuses ids that could escape the store', async () => {
      const store = await open();
      await expect(store.getRun('../etc')).rejects.toThrow(/must be 1-80 letters/);
    });

    it('stores API keys by id, lists them oldest first, and keeps a revoked key as revoked', async () => {
      const store = await open();
      const hash = 'a'.repeat(64);
      await store.putApiKey({ id: 'k2', name: 'ci', scope: 'run', secret_hash: hash, created_at: '2026-02-01T00:00:00.000Z' });
      await store.putApiKey({
        id: 'k1',
        name: 'ops',
        scope: 'admin',
        project_id: 'shop',
        secret_hash: hash,
        created_at: '2026-01-01T00:00:00.000Z',
      });
      await store.putApiKey({
        id: 'k2',
        name: 'ci',
        scope: 'run',
        secret_hash: hash,
        created_at: '2026-02-01T00:00:00.000Z',
        revoked_at: '2026-03-01T00:00:00.000Z',
      });
      expect((await store.listApiKeys()).map((key) => key.id)).toEqual(['k1', 'k2']);
      expect((await store.getApiKey('k2'))?.revoked_at).toBe('2026-03-01T00:00:00.000Z');
      expect((await store.getApiKey('k1'))?.project_id).toBe('shop');
      expect(await store.getApiKey('nope')).toBeNull();
    });

    it('caches values by namespace and key until they expire, and deletes by key or prefix', async () => {
      const store = await open();
      await store.cachePut('schema', 'p1:abc', { tables: [1, 2] }, { ttlMs: 60_000 });
      await store.cachePut('schema', 'p1:def', { tables: [3] }, { ttlMs: 60_000 });
      await store.cachePut('schema', 'p2:abc', { tables: [4] }, { ttlMs: 60_000 });
      await store.cachePut('compact', 'k:with/odd chars', 'v', { ttlMs: 1 });
      expect((await store.cacheGet('schema', 'p1:abc'))?.value).toEqual({ tables: [1, 2] });
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(await store.cacheGet('compact', 'k:with/odd chars')).toBeNull();
      await store.cacheDelete('schema', undefined, { prefix: 'p1:' });
      expect(await store.cacheGet('schema', 'p1:abc')).toBeNull();
      expect(await store.cacheGet('schema', 'p1:def')).toBeNull();
      expect((await store.cacheGet('schema', 'p2:abc'))?.value).toEqual({ tables: [4] });
      await store.cacheDelete('schema', 'p2:abc');
      expect(await store.cacheGet('schema', 'p2:abc')).toBeNull();
    });
  });
}
