/** Concurrency within one process: limits (p-limit), mapping under a limit, and per-key locks (async-mutex). */
export * from './keyed-lock.js';
export * from './limiter.js';
export * from './map-with-concurrency.js';
