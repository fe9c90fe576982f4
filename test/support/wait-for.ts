/**
 * Waiting on a condition instead of sleeping a fixed time: `waitFor` polls `check` until it returns a
 * value other than `undefined`/`false` and returns it, or fails after `timeoutMs` saying what it waited
 * for and what it last saw. A timeout is a ceiling for a broken run, never the thing a test measures.
 */
export interface WaitForOptions {
  /** @defaultValue 20000 */
  timeoutMs?: number;
  /** Pause between checks. @defaultValue 25 */
  intervalMs?: number;
  /** Describes the last state seen, for the timeout's message. */
  lastSeen?: () => string | Promise<string>;
}

export class WaitTimeoutError extends Error {
  readonly code = 'WAIT_TIMEOUT';
}

export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  options: WaitForOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (performance.now() > deadline) {
      const seen = options.lastSeen ? ` (last seen: ${await options.lastSeen()})` : '';
      throw new WaitTimeoutError(`gave up after ${timeoutMs} ms waiting for ${what}${seen}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 25));
  }
}
