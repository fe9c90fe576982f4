/** Prompt texts for the unit tests, built with the engine's own renderers and the shipped pack templates. */
import { readFileSync } from 'node:fs';
import { compactResult, columnsFromRows } from '../../../src/compaction/compact-result.js';
import { renderQueryResults } from '../../../src/compaction/render.js';
import { resolveAreas } from '../../../src/discovery/packs/pack-loader.js';
import { loadPack } from '../../support/packs.js';
import {
  renderAnalysisPrompt,
  renderExplorationPrompt,
  renderRecommendationsPrompt,
} from '../../../src/discovery/packs/prompt-assembly.js';
import { renderKickoff } from '../../../src/discovery/parsing/turn-format.js';
import { renderTemplate } from '../../../src/discovery/packs/template.js';
import { renderSqlFixPrompt } from '../../../src/discovery/sql/sql-fix-prompt.js';
import { compactInsights, insightsSummary } from '../../../src/discovery/phases/recommend.js';
import type { ExplorationStep, Insight, Row } from '../../../src/domain/index.js';
import type { LlmRequest } from '../../../src/llm/port.js';
import { renderCatalog } from '../../../src/schema/catalog.js';
import { inferColumnCategory } from '../../../src/warehouse/column-category.js';
import type { TableSchema } from '../../../src/warehouse/port.js';
import type { SqlDialect } from '../../../src/warehouse/dialect.js';

export const pack = loadPack('ecommerce');
export const areas = resolveAreas(pack);

function table(qualified: string, rowCount: number, columns: Array<[string, string, boolean?]>, primaryKey: string): TableSchema {
  const [schema, name] = qualified.split('.') as [string, string];
  return {
    schema,
    name,
    qualified,
    rowCount,
    samples: [],
    columns: columns.map(([column, type, nullable]) => ({
      name: column,
      type,
      nullable: nullable ?? false,
      category: inferColumnCategory(column, type, { primaryKey: column === primaryKey }),
    })),
  };
}

export const shopTables: TableSchema[] = [
  table(
    'shop.sessions',
    36_000,
    [
      ['session_id', 'BIGINT'],
      ['customer_id', 'BIGINT', true],
      ['started_at', 'TIMESTAMP'],
      ['device_type', 'VARCHAR'],
      ['reached_checkout', 'BOOLEAN'],
    ],
    'session_id',
  ),
  table(
    'shop.orders',
    12_000,
    [
      ['order_id', 'BIGINT'],
      ['session_id', 'BIGINT'],
      ['customer_id', 'BIGINT'],
      ['ordered_at', 'TIMESTAMP'],
      ['order_status', 'VARCHAR'],
      ['total_amount', 'DECIMAL(12,2)'],
    ],
    'order_id',
  ),
  table(
    'shop.customers',
    5_000,
    [
      ['customer_id', 'BIGINT'],
      ['signup_at', 'TIMESTAMP'],
      ['region', 'VARCHAR'],
    ],
    'customer_id',
  ),
];

export function explorationSystem(tables: readonly TableSchema[] = shopTables, dialect: SqlDialect = 'duckdb'): string {
  const catalog = renderCatalog(tables, { areaKeywords: areas.flatMap((area) => area.keywords) });
  return renderExplorationPrompt({
    pack,
    category: undefined,
    project: { warehouse: { url: 'duckdb:test' } } as never,
    dialect,
    tables,
    catalogText: catalog.text,
    areas,
    maxSteps: 20,
    minSteps: 0,
  });
}

export function kickoffRequest(tables: readonly TableSchema[] = shopTables, dialect: 'duckdb' | 'postgres' = 'duckdb'): LlmRequest {
  return {
    system: explorationSystem(tables, dialect),
    messages: [{ role: 'user', content: renderKickoff({ maxSteps: 20, minSteps: 0, lookupsLeft: 30, searchesLeft: 30 }) }],
    maxOutputTokens: 4_096,
  };
}

export function queryStep(step: number, purpose: string, query: string, rows: Row[]): ExplorationStep {
  const columns = columnsFromRows(rows).map((column) => ({ name: column.name, type: column.type ?? 'VARCHAR' }));
  return {
    run_id: 'r',
    step,
    action: 'query',
    timestamp: '2025-01-01T00:00:00.000Z',
    thinking: '',
    query_purpose: purpose,
    query,
    executed_query: query,
    fix_attempts: 0,
    fixed: false,
    row_count: rows.length,
    rows,
    columns,
    compact: compactResult(columns, rows),
  };
}

export function analysisRequest(areaId: string, steps: readonly ExplorationStep[]): LlmRequest {
  const area = areas.find((candidate) => candidate.id === areaId);
  if (!area) throw new Error(`no area ${areaId}`);
  return {
    system: 'base context',
    messages: [
      {
        role: 'user',
        content: renderAnalysisPrompt(pack, area, { dataset: 'shop', totalQueries: steps.length, queryResults: renderQueryResults(steps) }),
      },
    ],
    maxOutputTokens: 8_192,
  };
}

export function recommendationsRequest(insights: readonly Insight[]): LlmRequest {
  return {
    system: 'base context',
    messages: [
      {
        role: 'user',
        content: renderRecommendationsPrompt(pack, {
          discoveryDate: '2025-01-01',
          insightsSummary: insightsSummary(insights),
          insightsData: compactInsights(insights),
        }),
      },
    ],
    maxOutputTokens: 8_192,
  };
}

/** The engine's sql_fix prompt for `sql` over `tables` (`schema.table` and `name TYPE` columns). */
export function sqlFixRequest(
  sql: string,
  error: string,
  tables: Record<string, string[]>,
  dialect: Parameters<typeof renderSqlFixPrompt>[0]['dialect'] = 'duckdb',
): LlmRequest {
  const schemas = Object.entries(tables).map(([qualified, columns]): TableSchema => {
    const [schema = '', name = ''] = qualified.split('.');
    return {
      schema,
      name,
      qualified,
      rowCount: 100,
      samples: [],
      columns: columns.map((column) => {
        const [columnName = '', type = 'VARCHAR'] = column.split(' ');
        return { name: columnName, type, nullable: true, category: 'dimension' };
      }),
    };
  });
  const prompt = renderSqlFixPrompt({ dialect, sql, error, tables: schemas, previous: [] });
  return { messages: [{ role: 'user', content: prompt }], maxOutputTokens: 2_000 };
}

export function insight(overrides: Partial<Insight> & Pick<Insight, 'id' | 'name'>): Insight {
  return {
    analysis_area: overrides.id.split('-')[0] ?? 'conversion',
    description: '',
    severity: 'high',
    affected_count: 100,
    risk_score: null,
    confidence: 0.8,
    metrics: {},
    indicators: [],
    target_segment: '',
    source_steps: [1],
    finding_ids: [],
    supporting_claims: [],
    discovered_at: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}
