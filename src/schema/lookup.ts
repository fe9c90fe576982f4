/**
 * lookup_schema: columns and sample rows for the tables the model names, from the cached schemas.
 * Bounded per call (10 tables, 50 columns, 3 rows, 80-char values) and per run (30 calls); tables
 * already shown earlier in the run are not repeated. `lookupSchema` is pure; `lookupSchemaWithSamples`
 * first fetches the samples of the tables the reply will show (once per table: `table-samples.ts`).
 */
import { fenceData, fenceInline, promptIdentifier, promptTableName, promptText } from '../llm/data-fence.js';
import type { Row, TableSchema } from '../warehouse/port.js';
import { DEFAULT_SCHEMA_BUDGET_LIMITS, lookupBudgetLine, type SchemaBudgetState } from './budget.js';
import {
  LOOKUP_COLUMN_COMMENT_MAX_CHARS,
  LOOKUP_MAX_COLUMNS,
  LOOKUP_SAMPLE_ROWS,
  LOOKUP_SAMPLE_VALUE_MAX_CHARS,
  LOOKUP_TABLE_COMMENT_MAX_CHARS,
  MAX_LOOKUP_TABLES_PER_CALL,
} from './constants.js';
import { formatRowCount, formatSampleValue } from './format.js';
import { createTableResolver, normaliseTableRef, type TableResolver, type TableSource } from './table-resolver.js';
import type { TableSampler } from './table-samples.js';

export interface LookupContext {
  /** The project's cached schemas, or a resolver built once over them. */
  tables: TableSource | TableResolver;
  /** The run's budget state before this call. */
  budget: SchemaBudgetState;
  /** @defaultValue 30 (DEFAULT_MAX_LOOKUPS_PER_RUN) */
  maxLookups?: number;
  /** Sample rows by qualified name, for tables that do not carry their own. */
  samples?: ReadonlyMap<string, readonly Row[]>;
}

export interface LookupResult {
  /** The reply for the model's next message. */
  text: string;
  /** Qualified names rendered in this reply. */
  found: string[];
  /** References (as normalised) that matched no table, or more than one. */
  notFound: string[];
  /** Qualified names skipped because an earlier lookup in the run already showed them. */
  alreadyFetched: string[];
  /** References beyond the per-call cap, not looked at. */
  truncated: string[];
  /** Whether this call was charged to the run's budget. */
  debited: boolean;
  /** Lookup calls left after this one. */
  budgetRemaining: number;
  /** The budget state to store on the run. */
  budget: SchemaBudgetState;
}

function isResolver(tables: LookupContext['tables']): tables is TableResolver {
  return typeof (tables as TableResolver).resolve === 'function';
}

/**
 * The detail of one table, fenced as warehouse data: a header, the table's comment, `- name TYPE NOT NULL
 * [category]` lines (with the column's comment), and up to three sample rows with sorted keys. Names are
 * quoted as SQL would quote them; values and comments are JSON strings.
 */
export function renderTableDetail(table: TableSchema, sampleRows: readonly Row[] = table.samples ?? []): string {
  const shown = table.columns.slice(0, LOOKUP_MAX_COLUMNS);
  const lines = [`Schema for ${promptTableName(table)} (${formatRowCount(table.rowCount)} rows):`];
  if (table.comment) lines.push(`Comment: ${promptText(table.comment, LOOKUP_TABLE_COMMENT_MAX_CHARS)}`);
  lines.push(`Columns (${table.columns.length}):`);
  for (const column of shown) {
    const comment = column.comment ? ` comment ${promptText(column.comment, LOOKUP_COLUMN_COMMENT_MAX_CHARS)}` : '';
    lines.push(`- ${promptIdentifier(column.name)} ${column.type} ${column.nullable ? 'NULL' : 'NOT NULL'} [${column.category}]${comment}`);
  }
  if (table.columns.length > shown.length) lines.push(`(${table.columns.length - shown.length} more columns not shown)`);
  const samples = sampleRows.slice(0, LOOKUP_SAMPLE_ROWS);
  if (samples.length === 0) {
    lines.push('Sample rows: none available.');
  } else {
    // Sample keys follow the shown columns, so a very wide table cannot flood the message through its samples.
    const shownNames = table.columns.length > shown.length ? new Set(shown.map((column) => column.name)) : null;
    lines.push(`Sample rows (${samples.length}):`);
    samples.forEach((row, index) => {
      const keys = Object.keys(row)
        .filter((key) => shownNames === null || shownNames.has(key))
        .sort()
        .slice(0, LOOKUP_MAX_COLUMNS);
      lines.push(
        `${index + 1}. {${keys.map((key) => `${promptIdentifier(key)}: ${formatSampleValue(row[key], LOOKUP_SAMPLE_VALUE_MAX_CHARS)}`).join(', ')}}`,
      );
    });
  }
  return fenceData(lines.join('\n'));
}

/** Table references as the model wrote them. */
function quoteList(names: readonly string[]): string {
  return names.map((name) => `\`${name}\``).join(', ');
}

/** Tables of the warehouse (qualified names), fenced as data and quoted as SQL quotes them. */
function tableList(qualified: readonly string[], byQualified: ReadonlyMap<string, TableSchema>): string {
  const names = qualified.map((name) => {
    const table = byQualified.get(name);
    return table ? promptTableName(table) : promptIdentifier(name);
  });
  return fenceInline(names.join(', '));
}

export function lookupSchema(refs: readonly string[], context: LookupContext): LookupResult {
  const maxLookups = context.maxLookups ?? DEFAULT_SCHEMA_BUDGET_LIMITS.maxLookups;
  const before = context.budget;
  if (before.lookups_used >= maxLookups) {
    return {
      text: `lookup_schema budget exhausted (${before.lookups_used}/${maxLookups} calls used). Work with the tables already inspected, or query directly.`,
      found: [],
      notFound: [],
      alreadyFetched: [],
      truncated: [],
      debited: false,
      budgetRemaining: 0,
      budget: before,
    };
  }

  const distinct = [...new Set(refs.map(normaliseTableRef).filter((ref) => ref.length > 0))];
  const accepted = distinct.slice(0, MAX_LOOKUP_TABLES_PER_CALL);
  const truncated = distinct.slice(MAX_LOOKUP_TABLES_PER_CALL);
  const resolver = isResolver(context.tables) ? context.tables : createTableResolver(context.tables);
  const fetchedBefore = new Set(before.fetched);

  const found: TableSchema[] = [];
  const alreadyFetched: string[] = [];
  const notFound: string[] = [];
  const ambiguities: string[] = [];
  const seen = new Map<string, TableSchema>();
  for (const ref of accepted) {
    const resolution = resolver.resolve(ref);
    if (resolution.kind === 'found') {
      const qualified = resolution.table.qualified;
      seen.set(qualified, resolution.table);
      if (fetchedBefore.has(qualified)) {
        if (!alreadyFetched.includes(qualified)) alreadyFetched.push(qualified);
      } else if (!found.includes(resolution.table)) {
        found.push(resolution.table);
      }
    } else {
      notFound.push(ref);
      if (resolution.kind === 'ambiguous') {
        for (const table of resolution.tables) seen.set(table.qualified, table);
        ambiguities.push(`\`${ref}\` could be ${tableList(resolution.candidates, seen)}`);
      }
    }
  }

  // A call that only repeats tables already shown costs nothing; any other call is charged, even one that finds nothing.
  const onlyRepeats = alreadyFetched.length > 0 && found.length === 0 && notFound.length === 0 && truncated.length === 0;
  const debited = !onlyRepeats;
  const budget: SchemaBudgetState = {
    lookups_used: before.lookups_used + (debited ? 1 : 0),
    searches_used: before.searches_used,
    fetched: [...before.fetched, ...found.map((table) => table.qualified)],
  };

  const sections: string[] = found.map((table) => renderTableDetail(table, table.samples ?? context.samples?.get(table.qualified)));
  if (distinct.length === 0) sections.push('lookup_schema needs at least one table name, e.g. ["main.orders"].');
  if (notFound.length > 0) {
    const detail = ambiguities.length > 0 ? ` (${ambiguities.join('; ')}: use the qualified name)` : '';
    sections.push(`Not found: ${quoteList(notFound)}${detail}. Check the catalog or use search_tables.`);
  }
  if (alreadyFetched.length > 0)
    sections.push(`Already inspected earlier in this run (see the earlier messages): ${tableList(alreadyFetched, seen)}.`);
  if (truncated.length > 0) {
    sections.push(
      `Truncated: at most ${MAX_LOOKUP_TABLES_PER_CALL} tables per call; not looked up: ${quoteList(truncated)}. Ask for them in another call if needed.`,
    );
  }
  sections.push(lookupBudgetLine(budget.lookups_used, maxLookups));

  return {
    text: sections.join('\n\n'),
    found: found.map((table) => table.qualified),
    notFound,
    alreadyFetched,
    truncated,
    debited,
    budgetRemaining: Math.max(0, maxLookups - budget.lookups_used),
    budget,
  };
}

/**
 * `lookupSchema` with the sample rows of the tables it shows read first through `sampler` (the
 * warehouse only for tables never sampled before). The reply is the same size-bounded text.
 */
export async function lookupSchemaWithSamples(
  refs: readonly string[],
  context: Omit<LookupContext, 'samples'>,
  sampler: TableSampler,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<LookupResult> {
  const resolver = isResolver(context.tables) ? context.tables : createTableResolver(context.tables);
  const planned = lookupSchema(refs, { ...context, tables: resolver });
  if (planned.found.length === 0) return planned;
  const shown = new Set(planned.found);
  const tables: TableSchema[] = [];
  for (const qualified of shown) {
    const resolution = resolver.resolve(qualified);
    if (resolution.kind === 'found' && resolution.table.samples === undefined) tables.push(resolution.table);
  }
  if (tables.length === 0) return planned;
  const samples = await sampler.samplesOf(tables, options);
  return lookupSchema(refs, { ...context, tables: resolver, samples });
}
