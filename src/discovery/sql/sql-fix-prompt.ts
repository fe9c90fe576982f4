/** The fixer the SQL executor calls: the sql_fix prompt, grounded on the touched tables, through the fast model. */
import type { LlmPhase } from '../../domain/index.js';
import type { TableSchema } from '../../warehouse/port.js';
import { modelFor, type DiscoveryDeps } from '../context.js';
import { askLlm } from '../llm-gateway.js';
import { loadEnginePrompt } from '../packs/pack-loader.js';
import { dialectName } from '../packs/prompt-assembly.js';
import type { SqlFixer } from './sql-executor.js';
import { extractFixedSql, renderPreviousAttempts, renderTableColumns, tablesMentioned } from './sql-fixer.js';
import { renderTemplate } from '../packs/template.js';

const SQL_FIX_VARIABLES = ['DIALECT', 'ORIGINAL_SQL', 'ERROR_MESSAGE', 'TABLE_COLUMNS', 'PREVIOUS_ATTEMPTS', 'VERIFICATION_CONTEXT'];
/** A SQL fix needs room for one statement, not an essay. */
const SQL_FIX_MAX_OUTPUT_TOKENS = 2_000;

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
    const touched = tablesMentioned(sql, options.tables);
    const prompt = renderTemplate(
      loadEnginePrompt('sql_fix', SQL_FIX_VARIABLES),
      {
        DIALECT: dialectName(deps.warehouse.dialect),
        ORIGINAL_SQL: sql,
        ERROR_MESSAGE: error,
        TABLE_COLUMNS: renderTableColumns(touched),
        PREVIOUS_ATTEMPTS: renderPreviousAttempts(previous),
        VERIFICATION_CONTEXT: options.verificationContext ?? '(none: this query comes from exploration)',
      },
      { file: 'src/discovery/prompts/sql_fix.md', allowed: SQL_FIX_VARIABLES },
    );
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
