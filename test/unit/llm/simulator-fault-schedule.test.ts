import { describe, expect, it } from 'vitest';
import { FaultSchedule } from '../../../src/llm/simulator/fault-schedule.js';

describe('when rate limiting every K-th request', () => {
  it('admits K-1, refuses the K-th with the full wait, and refuses everything during the cool-down with the time left', () => {
    let now = 0;
    const schedule = new FaultSchedule({ rateLimitEvery: 3, retryAfterSeconds: 2 }, () => now);
    expect([schedule.rateLimit(), schedule.rateLimit()]).toEqual([undefined, undefined]);
    expect(schedule.rateLimit()).toBe(2);
    now = 500;
    expect(schedule.rateLimit()).toBe(1.5);
    now = 2_000;
    expect([schedule.rateLimit(), schedule.rateLimit(), schedule.rateLimit()]).toEqual([undefined, undefined, 2]);
  });

  it('never refuses when no K is set', () => {
    const schedule = new FaultSchedule({ retryAfterSeconds: 1 });
    expect(Array.from({ length: 50 }, () => schedule.rateLimit()).every((wait) => wait === undefined)).toBe(true);
  });
});

describe('when malforming every K-th reply', () => {
  it('marks exactly every K-th reply', () => {
    const schedule = new FaultSchedule({ retryAfterSeconds: 1, malformedEvery: 2 });
    expect(Array.from({ length: 6 }, () => schedule.malformed())).toEqual([false, true, false, true, false, true]);
  });
});
