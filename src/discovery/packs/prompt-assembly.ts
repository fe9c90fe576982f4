/** Fills the pack's templates for each phase. Pure: same inputs, same prompt text. */
import type { Project } from '../../domain/index.js';
import {
  DEFAULT_MAX_LOOKUPS_PER_RUN,
  DEFAULT_MAX_SEARCHES_PER_RUN,
  DEFAULT_SEARCH_TOP_K,
  MAX_LOOKUP_TABLES_PER_CALL,
  MAX_SEARCH_TOP_K,
} from '../../schema/constants.js';
import { DIALECT_DISPLAY_NAMES } from '../../warehouse/dialect.js';
import type { TableSchema, Warehouse } from '../../warehouse/port.js';
import { ALLOWED_VARIABLES } from './pack-schema.js';
import type { AnalysisArea, DomainPack } from './pack-schema.js';
import { categoryContext } from './pack-loader.js';
import { renderTemplate } from './template.js';

export function dialectName(dialect: Warehouse['dialect']): string {
  return DIALECT_DISPLAY_NAMES[dialect];
}

/** The schemas the catalog spans, for `{{DATASET}}`. */
export function datasetNames(tables: readonly Pick<TableSchema, 'schema'>[]): string {
  const names = [...new Set(tables.map((table) => table.schema))].sort();
  return names.length > 0 ? names.join(', ') : '(no tables)';
}

/** The tenant rule as a sentence: the connection enforces the filter, so the model need not add it. */
export function filterRule(project: Pick<Project, 'warehouse'>): string {
  const filter = project.warehouse.filter;
  if (!filter) return 'No tenant filter applies: every row of every listed table is in scope.';
  return `All data you can see is already restricted to ${filter.field} = ${JSON.stringify(filter.value)} by the connection itself; you do not need to add this filter, and you cannot see other tenants' rows.`;
}

export function analysisAreasList(areas: readonly AnalysisArea[]): string {
  return areas
    .map((area, index) => `${index + 1}. **${area.name}** (\`${area.id}\`) — ${area.description} Keywords: ${area.keywords.join(', ')}.`)
    .join('\n');
}

export function renderBaseContext(pack: DomainPack, project: Pick<Project, 'profile'>, previousContext: string): string {
  const profile =
    Object.keys(project.profile).length > 0
      ? JSON.stringify(project.profile, null, 2)
      : 'No project profile is configured. Infer the business model from the data and say so where it matters.';
  return renderTemplate(
    pack.prompts.base_context,
    {
      PROFILE: profile,
      PREVIOUS_CONTEXT: previousContext || 'This is the first discovery run for this project: there are no earlier findings or feedback.',
    },
    { file: `${pack.slug}/prompts/base_context.md`, allowed: ALLOWED_VARIABLES.base_context },
  );
}

export interface ExplorationPromptInput {
  pack: DomainPack;
  category: string | undefined;
  project: Pick<Project, 'warehouse'>;
  dialect: Warehouse['dialect'];
  tables: readonly Pick<TableSchema, 'schema'>[];
  catalogText: string;
  areas: readonly AnalysisArea[];
  maxSteps: number;
  minSteps: number;
}

export function renderExplorationPrompt(input: ExplorationPromptInput): string {
  return renderTemplate(
    input.pack.prompts.exploration,
    {
      DATASET: datasetNames(input.tables),
      DIALECT: dialectName(input.dialect),
      SCHEMA_INFO: input.catalogText,
      FILTER_RULE: filterRule(input.project),
      ANALYSIS_AREAS: analysisAreasList(input.areas),
      MAX_STEPS: String(input.maxSteps),
      MIN_STEPS: String(input.minSteps),
      MAX_LOOKUP_TABLES_PER_CALL: String(MAX_LOOKUP_TABLES_PER_CALL),
      MAX_LOOKUPS_PER_RUN: String(DEFAULT_MAX_LOOKUPS_PER_RUN),
      MAX_SEARCHES_PER_RUN: String(DEFAULT_MAX_SEARCHES_PER_RUN),
      DEFAULT_SEARCH_TOP_K: String(DEFAULT_SEARCH_TOP_K),
      MAX_SEARCH_TOP_K: String(MAX_SEARCH_TOP_K),
      CATEGORY_CONTEXT: categoryContext(input.pack, input.category),
    },
    { file: `${input.pack.slug}/prompts/exploration.md`, allowed: ALLOWED_VARIABLES.exploration },
  );
}

export function renderAnalysisPrompt(
  pack: DomainPack,
  area: AnalysisArea,
  input: { dataset: string; totalQueries: number; queryResults: string },
): string {
  return renderTemplate(
    area.prompt,
    {
      AREA_NAME: area.name,
      AREA_DESCRIPTION: area.description,
      DATASET: input.dataset,
      TOTAL_QUERIES: String(input.totalQueries),
      QUERY_RESULTS: input.queryResults,
    },
    { file: `${pack.slug}/prompts/${area.prompt_file}`, allowed: ALLOWED_VARIABLES.analysis },
  );
}

export function renderRecommendationsPrompt(
  pack: DomainPack,
  input: { discoveryDate: string; insightsSummary: string; insightsData: string },
): string {
  return renderTemplate(
    pack.prompts.recommendations,
    { DISCOVERY_DATE: input.discoveryDate, INSIGHTS_SUMMARY: input.insightsSummary, INSIGHTS_DATA: input.insightsData },
    { file: `${pack.slug}/prompts/recommendations.md`, allowed: ALLOWED_VARIABLES.recommendations },
  );
}
