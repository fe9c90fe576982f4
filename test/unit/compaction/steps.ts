/** Builders for exploration steps in compaction tests. */
import { explorationStepSchema, type ExplorationStep, type Row } from '../../../src/domain/index.js';

export function queryStep(step: number, fields: Partial<ExplorationStep> & { rows?: Row[] } = {}): ExplorationStep {
  return explorationStepSchema.parse({
    run_id: 'run-1',
    step,
    action: 'query',
    timestamp: '2024-03-04T00:00:00Z',
    thinking: '',
    query_purpose: `purpose ${step}`,
    query: `SELECT ${step}`,
    executed_query: `SELECT ${step}`,
    row_count: fields.rows?.length ?? 0,
    rows: [],
    ...fields,
  });
}

export function lookupStep(step: number, tables: string[]): ExplorationStep {
  return explorationStepSchema.parse({ run_id: 'run-1', step, action: 'lookup_schema', timestamp: '2024-03-04T00:00:00Z', tables });
}
