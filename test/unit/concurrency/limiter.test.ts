import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../../src/concurrency/index.js';

describe('createLimiter', () => {
  it('never runs more than the limit at once and runs everything', async () => {
    const limit = createLimiter(3);
    let running = 0;
    let peak = 0;
    const done: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        limit(async () => {
          running++;
          peak = Math.max(peak, running);
          await new Promise((resolve) => setTimeout(resolve, (index % 4) * 2));
          running--;
          done.push(index);
        }),
      ),
    );
    expect(peak).toBe(3);
    expect(done).toHaveLength(20);
  });

  it('frees the slot when a task throws', async () => {
    const limit = createLimiter(1);
    await expect(limit(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limit(async () => 'ok')).resolves.toBe('ok');
  });

  it('refuses a non-positive concurrency', () => {
    expect(() => createLimiter(0)).toThrow(RangeError);
  });
});
