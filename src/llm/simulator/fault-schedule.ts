/** Deterministic fault injection: every K-th request rate-limited (with a real cool-down), every K-th reply malformed. */

export interface FaultScheduleOptions {
  /** Rate-limit every K-th admitted completion request. @defaultValue never */
  rateLimitEvery?: number | undefined;
  /** Length of the cool-down a rate limit opens, sent as `retry-after`. */
  retryAfterSeconds: number;
  /** Replace every K-th reply with prose. @defaultValue never */
  malformedEvery?: number | undefined;
}

/**
 * A rate limit opens a cool-down during which every request is refused with the remaining wait, as a
 * real token bucket does: a client that retries without honouring `retry-after` is refused again.
 */
export class FaultSchedule {
  #admitted = 0;
  #replies = 0;
  #coolDownUntil = 0;

  constructor(
    private readonly options: FaultScheduleOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds to wait when this request is refused; undefined when it is admitted. */
  rateLimit(): number | undefined {
    const now = this.now();
    if (now < this.#coolDownUntil) return Math.ceil(this.#coolDownUntil - now) / 1000;
    const every = this.options.rateLimitEvery;
    if (!every) return undefined;
    this.#admitted += 1;
    if (this.#admitted % every !== 0) return undefined;
    this.#coolDownUntil = now + this.options.retryAfterSeconds * 1000;
    return this.options.retryAfterSeconds;
  }

  /** True when this reply is to be replaced with prose. */
  malformed(): boolean {
    const every = this.options.malformedEvery;
    if (!every) return false;
    this.#replies += 1;
    return this.#replies % every === 0;
  }
}
