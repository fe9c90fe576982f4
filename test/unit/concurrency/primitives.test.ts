import { describe, expect, it } from 'vitest';
import { KeyedLock, createLimiter, mapWithConcurrency } from '../../../src/concurrency/index.js';
import { CancelledError } from '../../../src/errors/index.js';

const tick = () => new Promise((done) => setTimeout(done, 1));

describe('KeyedLock', () => {
  it('runs sections of one key one at a time, in call order, and other keys alongside; a failure frees the key', async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const section = (key: string, name: string, fail = false) =>
      lock.run(key, async () => {
        log.push(`${name}+`);
        await tick();
        log.push(`${name}-`);
        if (fail) throw new Error(name);
        return name;
      });
    const results = await Promise.allSettled([section('a', 'a1', true), section('a', 'a2'), section('b', 'b1')]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(log.indexOf('a1-')).toBeLessThan(log.indexOf('a2+'));
    expect(log.indexOf('b1+')).toBeLessThan(log.indexOf('a1-'));
    expect((lock as unknown as { locks: Map<string, unknown> }).locks.size).toBe(0);
  });
});

/** Counts tasks in flight and remembers the most at once. */
function inFlight() {
  const state = { running: 0, peak: 0 };
  return {
    state,
    async around<T>(work: () => Promise<T>): Promise<T> {
      state.running += 1;
      state.peak = Math.max(state.peak, state.running);
      try {
        return await work();
      } finally {
        state.running -= 1;
      }
    },
  };
}

describe('createLimiter', () => {
  it('runs tasks of a one-slot limiter in call order, one at a time, and keeps going after a failure', async () => {
    const queue = createLimiter(1);
    const tracker = inFlight();
    const order: number[] = [];
    const task = (n: number) => () =>
      tracker.around(async () => {
        await tick();
        order.push(n);
        if (n === 2) throw new Error('two');
        return n;
      });
    const results = await Promise.allSettled([1, 2, 3].map((n) => queue(task(n))));
    expect(order).toEqual([1, 2, 3]);
    expect(tracker.state.peak).toBe(1);
    expect(results[2]).toEqual({ status: 'fulfilled', value: 3 });
  });

  it('never runs more than the limit at once and runs everything', async () => {
    const limit = createLimiter(3);
    const tracker = inFlight();
    const done: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        limit(() =>
          tracker.around(async () => {
            for (let turn = 0; turn < index % 4; turn += 1) await tick();
            done.push(index);
          }),
        ),
      ),
    );
    expect(tracker.state.peak).toBe(3);
    expect(done).toHaveLength(20);
  });

  it('frees the slot when a task throws', async () => {
    const limit = createLimiter(1);
    await expect(limit(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limit(async () => 'ok')).resolves.toBe('ok');
  });

  it('refuses a concurrency that is not a whole number of at least 1', () => {
    expect(() => createLimiter(0)).toThrow(RangeError);
    expect(() => createLimiter(1.5)).toThrow(/whole number/);
  });
});

describe('mapWithConcurrency', () => {
  it('keeps input order under the concurrency cap', async () => {
    let running = 0;
    let most = 0;
    const out = await mapWithConcurrency([5, 1, 4, 2, 3], 2, async (n) => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((done) => setTimeout(done, n));
      running -= 1;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
  });

  it('starts nothing new after a failure or an abort, which rejects with CancelledError', async () => {
    const started: number[] = [];
    await expect(
      mapWithConcurrency([1, 2, 3, 4], 1, async (n) => {
        started.push(n);
        if (n === 2) throw new Error('boom');
        return n;
      }),
    ).rejects.toThrow('boom');
    expect(started).toEqual([1, 2]);
    const controller = new AbortController();
    controller.abort();
    await expect(mapWithConcurrency([1, 2], 1, async (n) => n, controller.signal)).rejects.toBeInstanceOf(CancelledError);
  });
});

describe('mapWithConcurrency when several calls fail', () => {
  it('rejects with the first failure and settles every queued call instead of leaving it pending', async () => {
    const started: number[] = [];
    const gates = new Map<number, () => void>();
    const running = mapWithConcurrency([1, 2, 3, 4, 5], 2, (n) => {
      started.push(n);
      return new Promise<number>((resolve, reject) => {
        gates.set(n, () => (n <= 2 ? reject(new Error(`fail ${n}`)) : resolve(n)));
      });
    });
    await expect.poll(() => started).toEqual([1, 2]);
    gates.get(2)?.();
    gates.get(1)?.();
    await expect(running).rejects.toThrow('fail 2');
    expect(started).toEqual([1, 2]);
  });
});
