/**
 * The read-modify-write step every RunStore's `updateRun` shares: the mutator gets its own copy of the
 * current (validated) run, and only the parts it changed are validated again (see incremental-parse).
 * The result shares unchanged parts with `current`; a store keeps it privately and hands out copies.
 */
import { runSchema, type Run } from '../domain/index.js';
import { type ParseReport, parseChanged } from './incremental-parse.js';
import { cloneJson } from './json-document.js';

export function reviseRun(current: Run, mutate: (run: Run) => Run, now: Date = new Date()): Run {
  const mutated = mutate(cloneJson(current));
  return parseChanged(runSchema, current, { ...mutated, id: current.id, updated_at: now.toISOString() });
}

/**
 * The run as stored, validated again only where it differs from `previous` (an earlier version of the
 * same run, when known); `report.exact` tells whether the stored document is exactly the result.
 */
export function parseStoredRun(raw: unknown, previous: Run | undefined, report?: ParseReport): Run {
  return parseChanged(runSchema, previous, raw, report);
}
