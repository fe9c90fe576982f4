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

describe('a limiter of one slot', () => {
  it('runs tasks in call order, one at a time, and keeps going after a failure', async () => {
    const queue = createLimiter(1);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const task = (n: number) => async () => {
      running += 1;
      most = Math.max(most, running);
      await tick();
      running -= 1;
      order.push(n);
      if (n === 2) throw new Error('two');
      return n;
    };
    const results = await Promise.allSettled([1, 2, 3].map((n) => queue(task(n))));
    expect(order).toEqual([1, 2, 3]);
    expect(most).toBe(1);
    expect(results[2]).toEqual({ status: 'fulfilled', value: 3 });
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
