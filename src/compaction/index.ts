/** Bounded prompts: result digests, their rendering, step picking, the per-run step index, loop compaction. */
export * from './compact-result.js';
export * from './render.js';
export * from './step-picker.js';
export * from './area-query-results.js';
export * from './run-step-index.js';
export * from './conversation.js';
