import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { requestSignal } from '../../../src/common/request-signal.js';

describe('a request signal following a caller signal', () => {
  it('aborts, with the caller reason, when the caller aborts', () => {
    const caller = new AbortController();
    const request = requestSignal(caller.signal);
    expect(request.signal?.aborted).toBe(false);
    const reason = new Error('run cancelled');
    caller.abort(reason);
    expect(request.signal?.aborted).toBe(true);
    expect(request.signal?.reason).toBe(reason);
  });

  it('starts aborted when the caller already is', () => {
    const caller = new AbortController();
    caller.abort('stop');
    const request = requestSignal(caller.signal);
    expect(request.signal?.aborted).toBe(true);
    expect(request.signal?.reason).toBe('stop');
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('takes its one listener off the caller signal when released, so requests do not pile listeners up', () => {
    const caller = new AbortController();
    for (let index = 0; index < 20; index += 1) {
      const request = requestSignal(caller.signal);
      expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
      request.release();
      expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    }
    // released: the caller aborting no longer reaches an old request
    const released = requestSignal(caller.signal);
    released.release();
    caller.abort();
    expect(released.signal?.aborted).toBe(false);
  });

  it('is undefined without a caller signal', () => {
    const request = requestSignal(undefined);
    expect(request.signal).toBeUndefined();
    request.release();
  });
});
