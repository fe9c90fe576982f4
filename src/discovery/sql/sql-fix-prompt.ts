/** The fixer the SQL executor calls: the sql_fix prompt, grounded on the touched tables, through the fast model. */
import type { LlmPhase } from '../../domain/index.js';
import { fenceData } from '../../llm/data-fence.js';
import type { TableSchema, Warehouse } from '../../warehouse/port.js';
import { modelFor, type DiscoveryDeps } from '../context.js';
import { askLlm } from '../llm-gateway.js';
import { renderDialectHints } from './dialect-hints.js';
import { dialectName } from '../packs/prompt-assembly.js';
import { SQL_FIX_TEMPLATE } from '../prompts/sql-fix.js';
import type { SqlFixer } from './sql-executor.js';
import { extractFixedSql, renderPreviousAttempts, renderTableColumns, tablesMentioned } from './sql-fixer.js';
import { renderTemplate } from '../packs/template.js';

const SQL_FIX_VARIABLES = [
  'DIALECT',
  'DIALECT_HINTS',
  'ORIGINAL_SQL',
  'ERROR_MESSAGE',
  'TABLE_COLUMNS',
  'PREVIOUS_ATTEMPTS',
  'VERIFICATION_CONTEXT',
];
/** A SQL fix needs room for one statement, not an essay. */
const SQL_FIX_MAX_OUTPUT_TOKENS = 2_000;

export interface SqlFixPromptInput {
  dialect: Warehouse['dialect'];
  sql: string;
  error: string;
  /** The catalog's tables: the prompt lists the columns of those the statement mentions. */
  tables: readonly TableSchema[];
  previous: ReadonlyArray<{ sql: string; error: string }>;
  /** The evidence of the finding being verified, when the statement verifies one. */
  verificationContext?: string | undefined;
}

/** The sql_fix prompt. Pure: the same input renders the same text. */
export function renderSqlFixPrompt(input: SqlFixPromptInput): string {
  return renderTemplate(
    SQL_FIX_TEMPLATE,
    {
      DIALECT: dialectName(input.dialect),
      DIALECT_HINTS: renderDialectHints(input.dialect),
      // the statement, the warehouse's error and the evidence all carry warehouse names and values: data, never instructions
      ORIGINAL_SQL: fenceData(`\`\`\`sql\n${input.sql}\n\`\`\``),
      ERROR_MESSAGE: fenceData(input.error),
      TABLE_COLUMNS: renderTableColumns(tablesMentioned(input.sql, input.tables)),
      PREVIOUS_ATTEMPTS: renderPreviousAttempts(input.previous),
      VERIFICATION_CONTEXT:
        input.verificationContext === undefined ? '(none: this query comes from exploration)' : fenceData(input.verificationContext),
    },
    { file: 'src/discovery/prompts/sql-fix.ts', allowed: SQL_FIX_VARIABLES },
  );
}

export function createSqlFixer(
  deps: DiscoveryDeps,
  options: {
    runId: string;
    tables: readonly TableSchema[];
    step?: number;
    area?: string;
    phase?: LlmPhase;
    verificationContext?: string;
    signal?: AbortSignal | undefined;
  },
): SqlFixer {
  return async ({ sql, error, previous }) => {
    const prompt = renderSqlFixPrompt({
      dialect: deps.warehouse.dialect,
      sql,
      error,
      tables: options.tables,
      previous,
      verificationContext: options.verificationContext,
    });
    const reply = await askLlm(deps, {
      runId: options.runId,
      ...modelFor(deps, 'sql_fix'),
      phase: options.phase ?? 'sql_fix',
      sections: [{ id: 'sql-fix', role: 'user', text: prompt, priority: 100, shrink: 'truncate' }],
      maxOutputTokens: SQL_FIX_MAX_OUTPUT_TOKENS,
      signal: options.signal,
      ...(options.step === undefined ? {} : { step: options.step }),
      ...(options.area === undefined ? {} : { area: options.area }),
    });
    return extractFixedSql(reply.text);
  };
}
