/**
 * A signal of its own for one SDK request, following the caller's. The OpenAI SDK adds an abort
 * listener to the signal a request is given and never removes it; given the caller's signal (a run's
 * or a job's, shared by every call it makes) that is one more listener per call, for the signal's whole
 * life — Node warns at the 11th (MaxListenersExceededWarning) and each keeps its request alive. The SDK
 * gets this short-lived signal instead, and `release()` takes our one listener off the caller's signal
 * when the request ends.
 */
export interface RequestSignal {
  /** Aborted, with the caller's reason, when the caller's signal aborts. Undefined without a caller signal. */
  readonly signal: AbortSignal | undefined;
  /** Stops following the caller's signal: call it when the request has settled. */
  release(): void;
}

export function requestSignal(caller: AbortSignal | undefined): RequestSignal {
  if (caller === undefined) return { signal: undefined, release: () => undefined };
  const controller = new AbortController();
  if (caller.aborted) {
    controller.abort(caller.reason);
    return { signal: controller.signal, release: () => undefined };
  }
  const forward = (): void => controller.abort(caller.reason);
  caller.addEventListener('abort', forward, { once: true });
  return { signal: controller.signal, release: () => caller.removeEventListener('abort', forward) };
}
