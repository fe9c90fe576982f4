/**
 * The per-run lookup/search budget. The state is the run document's `schema_budget` (plain JSON), so
 * whichever worker takes the next step rebuilds it from the run; functions return the next state
 * instead of mutating.
 */
import type { SchemaBudgetState } from '../domain/index.js';
import { DEFAULT_MAX_LOOKUPS_PER_RUN, DEFAULT_MAX_SEARCHES_PER_RUN } from './constants.js';

export type { SchemaBudgetState } from '../domain/index.js';

export interface SchemaBudgetLimits {
  /** @defaultValue 30 (DEFAULT_MAX_LOOKUPS_PER_RUN) */
  maxLookups: number;
  /** @defaultValue 30 (DEFAULT_MAX_SEARCHES_PER_RUN) */
  maxSearches: number;
}

export const DEFAULT_SCHEMA_BUDGET_LIMITS: SchemaBudgetLimits = {
  maxLookups: DEFAULT_MAX_LOOKUPS_PER_RUN,
  maxSearches: DEFAULT_MAX_SEARCHES_PER_RUN,
};

export function createSchemaBudget(): SchemaBudgetState {
  return { lookups_used: 0, searches_used: 0, fetched: [] };
}

export function lookupBudgetLine(used: number, max: number): string {
  return `lookup_schema budget: ${used}/${max} calls used, ${Math.max(0, max - used)} left.`;
}

export function searchBudgetLine(used: number, max: number): string {
  return `search_tables budget: ${used}/${max} calls used, ${Math.max(0, max - used)} left.`;
}
