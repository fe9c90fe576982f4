/**
 * Per-key limits of the API: run starts per minute (a sliding window) and open live-progress
 * streams. Both are counted in this process: with N API replicas a key gets up to N times the
 * budget, which bounds cost without a shared counter on every request.
 */
import { RateLimitedError, ValidationError } from '../errors/index.js';

const WINDOW_MS = 60_000;

export class RunStartLimiter {
  private readonly starts = new Map<string, number[]>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records a start for `keyId`, or throws 429 with the seconds until the oldest start leaves the window. */
  take(keyId: string): void {
    const now = this.now();
    const recent = (this.starts.get(keyId) ?? []).filter((at) => now - at < WINDOW_MS);
    if (recent.length >= this.perMinute) {
      const retryAfterSeconds = Math.max(1, Math.ceil((recent[0]! + WINDOW_MS - now) / 1000));
      this.starts.set(keyId, recent);
      throw new RateLimitedError(
        `this key started ${recent.length} runs in the last minute (limit ${this.perMinute}); retry in ${retryAfterSeconds} s`,
        retryAfterSeconds,
      );
    }
    recent.push(now);
    this.starts.set(keyId, recent);
  }
}

export class StreamLimiter {
  private readonly open = new Map<string, number>();

  constructor(private readonly perKey: number) {}

  /** Counts one more open stream for `keyId` and returns its release, or throws 429. */
  acquire(keyId: string): () => void {
    const count = this.open.get(keyId) ?? 0;
    if (count >= this.perKey) {
      throw new RateLimitedError(`this key already has ${count} live progress streams open (limit ${this.perKey}); close one first`, 5);
    }
    this.open.set(keyId, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(keyId) ?? 1) - 1;
      if (left <= 0) this.open.delete(keyId);
      else this.open.set(keyId, left);
    };
  }

  openFor(keyId: string): number {
    return this.open.get(keyId) ?? 0;
  }
}

/** How deep request JSON may nest: the deepest legitimate body (a project profile) needs a handful. */
export const MAX_JSON_DEPTH = 16;

/** Throws a 400 when `value` nests deeper than `maxDepth` (walked iteratively, so depth cannot blow the stack). */
export function assertJsonDepth(value: unknown, maxDepth = MAX_JSON_DEPTH): void {
  const stack: Array<{ node: unknown; depth: number }> = [{ node: value, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth + 1 > maxDepth) {
      throw new ValidationError(`the request body nests deeper than ${maxDepth} levels`, [{ path: '', message: 'nested too deeply' }]);
    }
    for (const child of Object.values(node)) stack.push({ node: child, depth: depth + 1 });
  }
}
