/**
 * Failed authentication, throttled (docs/api.md, "Failed logins"). Failures are counted per client
 * address, per key id, and per key id from one address. After `FREE_FAILURES` failures on one of them,
 * that counter is blocked for 1 s, then 2 s, 4 s … up to 15 min per further failure (exponential back-off),
 * and a blocked caller gets 429 with `Retry-After` before its key is even looked at. A key id under attack
 * from many addresses is blocked only for the addresses that failed on it: a client that has not failed
 * still gets in with the correct key. Counters live in Redis when the API runs with the fleet (every
 * replica sees the same counts; an in-memory limiter stands in while Redis is unreachable) and in memory
 * otherwise.
 */
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract, type RateLimiterRes } from 'rate-limiter-flexible';
import { RateLimitedError } from '../../errors/index.js';
import type { Logger } from '../../logging/index.js';
import type { Principal } from './keys.js';

/** Failures allowed on one counter before it is blocked: a mistyped key or two never meets a 429. */
export const FREE_FAILURES = 5;
/** A counter forgets its failures this long after the first one. */
export const FAILURE_WINDOW_SECONDS = 15 * 60;
/** The first block; each further failure doubles it. */
export const FIRST_BLOCK_SECONDS = 1;
/** The longest block. */
export const MAX_BLOCK_SECONDS = 15 * 60;

/** Where a request comes from and which key id it named (undefined when the token was not a key). */
export interface AuthAttempt {
  clientAddress: string;
  keyId: string | undefined;
}

export interface ThrottleVerdict {
  /** Seconds until this caller may try again; undefined when it may try now. */
  retryAfterSeconds: number | undefined;
}

export interface FailureOutcome {
  /** The largest failure count among the caller's counters. */
  failures: number;
  /** Seconds the caller is now blocked for, when this failure started or extended a block. */
  blockedForSeconds: number | undefined;
}

export interface AuthThrottle {
  check(attempt: AuthAttempt): Promise<ThrottleVerdict>;
  recordFailure(attempt: AuthAttempt): Promise<FailureOutcome>;
  /** A successful login clears the failures of that key id from that address (not the address's own). */
  recordSuccess(attempt: AuthAttempt): Promise<void>;
}

/** Seconds of block after `failures` failures on one counter. */
export function blockSecondsAfter(failures: number): number | undefined {
  if (failures <= FREE_FAILURES) return undefined;
  return Math.min(MAX_BLOCK_SECONDS, FIRST_BLOCK_SECONDS * 2 ** (failures - FREE_FAILURES - 1));
}

const byAddress = (attempt: AuthAttempt) => `ip:${attempt.clientAddress}`;
const byKey = (keyId: string) => `key:${keyId}`;
const byKeyFromAddress = (keyId: string, attempt: AuthAttempt) => `pair:${keyId}:${attempt.clientAddress}`;

function secondsLeft(result: RateLimiterRes | null): number | undefined {
  if (result === null || result.consumedPoints <= 1 || result.msBeforeNext <= 0) return undefined;
  return Math.max(1, Math.ceil(result.msBeforeNext / 1000));
}

/** The throttle over two limiters: `failures` counts, `blocks` holds the current blocks (a blocked key has points above 1). */
function throttleOver(failures: RateLimiterAbstract, blocks: RateLimiterAbstract): AuthThrottle {
  async function blockedFor(key: string): Promise<number | undefined> {
    return secondsLeft(await blocks.get(key));
  }

  return {
    async check(attempt) {
      const waits: Array<number | undefined> = [await blockedFor(byAddress(attempt))];
      if (attempt.keyId !== undefined) {
        waits.push(await blockedFor(byKeyFromAddress(attempt.keyId, attempt)));
        // a key id blocked by failures from many addresses: only the addresses that failed on it wait
        const keyBlock = await blockedFor(byKey(attempt.keyId));
        if (keyBlock !== undefined && ((await failures.get(byKeyFromAddress(attempt.keyId, attempt)))?.consumedPoints ?? 0) > 0)
          waits.push(keyBlock);
      }
      const longest = Math.max(0, ...waits.map((wait) => wait ?? 0));
      return { retryAfterSeconds: longest > 0 ? longest : undefined };
    },

    async recordFailure(attempt) {
      const keys = [byAddress(attempt)];
      if (attempt.keyId !== undefined) keys.push(byKey(attempt.keyId), byKeyFromAddress(attempt.keyId, attempt));
      let worst = 0;
      let blockedForSeconds: number | undefined;
      for (const key of keys) {
        const counted = await failures.penalty(key, 1);
        worst = Math.max(worst, counted.consumedPoints);
        const seconds = blockSecondsAfter(counted.consumedPoints);
        if (seconds !== undefined) {
          await blocks.block(key, seconds);
          blockedForSeconds = Math.max(blockedForSeconds ?? 0, seconds);
        }
      }
      return { failures: worst, blockedForSeconds };
    },

    async recordSuccess(attempt) {
      if (attempt.keyId === undefined) return;
      await failures.delete(byKeyFromAddress(attempt.keyId, attempt));
      await blocks.delete(byKeyFromAddress(attempt.keyId, attempt));
    },
  };
}

const FAILURE_OPTIONS = { points: Number.MAX_SAFE_INTEGER, duration: FAILURE_WINDOW_SECONDS, keyPrefix: 'assay-auth-failures' };
const BLOCK_OPTIONS = { points: 1, duration: MAX_BLOCK_SECONDS, keyPrefix: 'assay-auth-blocks' };

/** In one process: the embedded API (`--runner local`) and tests. */
export function createMemoryAuthThrottle(): AuthThrottle {
  return throttleOver(new RateLimiterMemory(FAILURE_OPTIONS), new RateLimiterMemory(BLOCK_OPTIONS));
}

/**
 * Shared by every API replica through Redis (`--runner bullmq`). While Redis cannot be reached, an
 * in-memory limiter of this process counts instead, so an outage neither opens the door nor locks it.
 */
export function createRedisAuthThrottle(client: Redis, prefix: string): AuthThrottle {
  const redis = (options: typeof FAILURE_OPTIONS | typeof BLOCK_OPTIONS) =>
    new RateLimiterRedis({
      storeClient: client,
      ...options,
      keyPrefix: `${prefix}:${options.keyPrefix}`,
      insuranceLimiter: new RateLimiterMemory(options),
    });
  return throttleOver(redis(FAILURE_OPTIONS), redis(BLOCK_OPTIONS));
}

/** What the auth middleware and the dashboard's login share: the throttle, a warning log and a metric. */
export interface LoginGate {
  throttle: AuthThrottle;
  logger: Logger;
  /** Counts one failed attempt: `rejected` (401, counted towards a block) or `throttled` (429, refused unread). */
  countFailure(outcome: 'rejected' | 'throttled'): void;
}

/** The key id a bearer token names, if it has the shape of a key (`assay_<id>_<secret>`). */
export function keyIdOfToken(token: string): string | undefined {
  return /^assay_([a-z0-9]{12})_/.exec(token)?.[1];
}

/**
 * Authenticates `token` from `clientAddress` through the gate: 429 (`RateLimitedError`, with the
 * seconds to wait) while the caller is blocked, the principal on success, null on a failure (counted).
 */
export async function authenticateThrough(
  gate: LoginGate,
  clientAddress: string,
  token: string,
  authenticate: (token: string) => Promise<Principal | null>,
): Promise<Principal | null> {
  const attempt: AuthAttempt = { clientAddress, keyId: keyIdOfToken(token) };
  const { retryAfterSeconds } = await gate.throttle.check(attempt);
  if (retryAfterSeconds !== undefined) {
    gate.countFailure('throttled');
    throw new RateLimitedError(
      `too many failed authentication attempts from this client: try again in ${retryAfterSeconds} s (a correct key still works from a client that has not failed)`,
      retryAfterSeconds,
    );
  }
  const principal = await authenticate(token);
  if (principal !== null) {
    await gate.throttle.recordSuccess(attempt);
    return principal;
  }
  const outcome = await gate.throttle.recordFailure(attempt);
  gate.countFailure('rejected');
  if (outcome.blockedForSeconds !== undefined) {
    // the key id is not a secret (the secret part of the token is never logged)
    gate.logger.warn(
      { clientAddress, keyId: attempt.keyId, failures: outcome.failures, blockedForSeconds: outcome.blockedForSeconds },
      'repeated failed authentication: throttling this client (429 until the block ends)',
    );
  }
  return null;
}
