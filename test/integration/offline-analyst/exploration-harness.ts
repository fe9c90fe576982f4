import { compactResult } from '../../../src/compaction/compact-result.js';
import { EXPLORER_ACTIONS, parseAction } from '../../../src/discovery/parsing/action-parser.js';
import { explorationSections } from '../../../src/discovery/phases/explore-step.js';
import { resolveAreas } from '../../../src/discovery/packs/pack-loader.js';
import { loadPack } from '../../support/packs.js';
import type { AnalysisArea, DomainPack } from '../../../src/discovery/packs/pack-schema.js';
import { renderExplorationPrompt, renderRecommendationsPrompt } from '../../../src/discovery/packs/prompt-assembly.js';
import type { ExplorationStep, Run } from '../../../src/domain/index.js';
import { buildPrompt } from '../../../src/llm/prompt-builder.js';
import type { LlmRequest } from '../../../src/llm/port.js';
import type { OfflineBrain } from '../../../src/llm/providers/offline.js';
import { createSchemaBudget } from '../../../src/schema/budget.js';
import { renderCatalog } from '../../../src/schema/catalog.js';
import { lookupSchema } from '../../../src/schema/lookup.js';
import { minStepsNudge } from '../../../src/discovery/parsing/turn-format.js';
import type { TableSchema, Warehouse } from '../../../src/warehouse/port.js';

export const ANALYST_WINDOW = { contextWindow: 200_000, maxOutputTokens: 4_096, family: 'default' as const };

export interface ExplorationSetting {
  pack: DomainPack;
  areas: AnalysisArea[];
  tables: TableSchema[];
  system: string;
  dialect: Warehouse['dialect'];
}

export function explorationSetting(
  packSlug: string,
  tables: TableSchema[],
  dialect: Warehouse['dialect'],
  maxSteps: number,
  minSteps: number,
): ExplorationSetting {
  const pack = loadPack(packSlug);
  const areas = resolveAreas(pack);
  const catalog = renderCatalog(tables, { areaKeywords: areas.flatMap((area) => area.keywords) });
  const system = renderExplorationPrompt({
    pack,
    category: undefined,
    project: { warehouse: { url: 'duckdb:test' } } as never,
    dialect,
    tables,
    catalogText: catalog.text,
    areas,
    maxSteps,
    minSteps,
  });
  return { pack, areas, tables, system, dialect };
}

/** The request the engine would send for the next step. */
export function explorationRequest(
  setting: ExplorationSetting,
  steps: readonly ExplorationStep[],
  run: Pick<Run, 'settings' | 'schema_budget'>,
): LlmRequest {
  const built = buildPrompt(explorationSections(setting.system, steps, run as Run), ANALYST_WINDOW);
  return { system: built.system, messages: built.messages, maxOutputTokens: ANALYST_WINDOW.maxOutputTokens };
}

export interface ExplorationTranscript {
  steps: ExplorationStep[];
  replies: string[];
  lookupCalls: number;
}

function baseStep(
  step: number,
  thinking: string,
  notes?: string,
): Pick<ExplorationStep, 'run_id' | 'step' | 'timestamp' | 'thinking' | 'query_purpose' | 'fix_attempts' | 'fixed' | 'notes'> {
  return {
    run_id: 'test',
    step,
    timestamp: '2025-01-01T00:00:00.000Z',
    thinking,
    query_purpose: '',
    fix_attempts: 0,
    fixed: false,
    // the engine keeps the working notes an action sends (explore-step.ts)
    ...(notes ? { notes } : {}),
  };
}

/** Runs exploration to its end; throws on a reply the engine's parser would reject. */
export async function explore(
  brain: OfflineBrain,
  setting: ExplorationSetting,
  warehouse: Warehouse,
  maxSteps: number,
  minSteps = 0,
): Promise<ExplorationTranscript> {
  const steps: ExplorationStep[] = [];
  const replies: string[] = [];
  let budget = createSchemaBudget();
  for (let number = 1; number <= maxSteps; number++) {
    const run = { settings: { max_steps: maxSteps, min_steps: minSteps } as Run['settings'], schema_budget: budget };
    const reply = await brain(explorationRequest(setting, steps, run));
    replies.push(reply);
    const parsed = parseAction(reply, EXPLORER_ACTIONS);
    if (!parsed.ok) throw new Error(`step ${number}: unparseable reply (${parsed.reason}): ${reply.slice(0, 300)}`);
    const action = parsed.action;
    if (action.type === 'lookup_schema') {
      const result = lookupSchema(action.tables, { tables: setting.tables, budget });
      budget = result.budget;
      steps.push({
        ...baseStep(number, action.thinking, action.notes),
        action: 'lookup_schema',
        tables: action.tables,
        result_text: result.text,
      });
    } else if (action.type === 'search_tables') {
      steps.push({
        ...baseStep(number, action.thinking, action.notes),
        action: 'search_tables',
        search_query: action.query,
        result_text: 'search_tables unavailable in this test.',
      });
    } else if (action.type === 'query') {
      const step: ExplorationStep = {
        ...baseStep(number, action.thinking, action.notes),
        query_purpose: action.purpose,
        action: 'query',
        query: action.query,
        executed_query: action.query,
      };
      try {
        const result = await warehouse.query(action.query, { maxRows: 1_000 });
        steps.push({
          ...step,
          row_count: result.rowCount,
          truncated: result.truncated,
          columns: result.columns,
          rows: result.rows,
          compact: compactResult(result.columns, result.rows),
          elapsed_ms: 1,
        });
      } catch (error) {
        steps.push({ ...step, error: (error as Error).message });
      }
    } else if (number < minSteps) {
      steps.push({
        ...baseStep(number, action.thinking, action.notes),
        action: 'complete_rejected',
        summary: action.summary,
        result_text: minStepsNudge(number, minSteps, maxSteps),
      });
    } else {
      steps.push({ ...baseStep(number, action.thinking, action.notes), action: 'done', summary: action.summary });
      break;
    }
  }
  return { steps, replies, lookupCalls: budget.lookups_used };
}

export function recommendationsRequest(setting: ExplorationSetting, summary: string, data: string): LlmRequest {
  return {
    system: 'base context',
    messages: [
      {
        role: 'user',
        content: renderRecommendationsPrompt(setting.pack, { discoveryDate: '2025-01-01', insightsSummary: summary, insightsData: data }),
      },
    ],
    maxOutputTokens: 8_192,
  };
}
