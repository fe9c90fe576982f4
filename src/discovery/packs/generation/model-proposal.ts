/**
 * The proposal from a configured model: one budgeted call (the Level-0 catalog under the run's catalog
 * budget, then column roles of the largest tables, both shrinking first), asked as structured output or a
 * `propose_pack` tool call where the model has them, else as JSON in text; the answer validated as a
 * proposal and as a pack; one repair (or reformat) turn that names every problem; otherwise the caller falls
 * back to the deterministic proposal. Model errors (auth, rate limits) propagate: they are not a bad proposal.
 */
import { z } from 'zod';
import type { LlmCallRecord } from '../../../domain/index.js';
import { AssayError } from '../../../errors/index.js';
import { callLlm } from '../../../llm/budgeted-call.js';
import { fenceData, promptIdentifier, promptTableName } from '../../../llm/data-fence.js';
import type { PromptSection } from '../../../llm/prompt-builder.js';
import { estimateTokens, type TokenFamily } from '../../../llm/tokens.js';
import { answerRequest, askForAnswer, describeIssues, type AnswerSpec, type ProtocolPreference } from '../../../llm/structured-output.js';
import { renderCatalog } from '../../../schema/index.js';
import type { TableSchema } from '../../../warehouse/port.js';
import type { LlmBinding } from '../../../llm/catalog.js';
import { parsedObjects } from '../../../common/json-extract.js';
import type { AnalysisArea } from '../pack-schema.js';
import { catalogBudgetTokens } from '../../phases/run-setting.js';
import {
  MAX_AREA_KEYWORDS,
  MAX_CONTEXT_LINES,
  MAX_DESCRIPTION_CHARS,
  MAX_FOCUS_LINES,
  MAX_GENERATED_AREAS,
  MAX_NAME_CHARS,
  MIN_GENERATED_AREAS,
  checkProposal,
  cleanLine,
  type PackProposal,
  type ProposedArea,
  type SuggestedProfile,
} from './proposal.js';
import type { WarehouseFacts } from './warehouse-facts.js';

/** Output room for a proposal of six areas with focus lines. */
const PROPOSAL_MAX_OUTPUT_TOKENS = 4_096;
/** Columns listed per table in the column section; the widest tables would otherwise crowd out the rest. */
const COLUMNS_PER_TABLE = 40;
/** Distinct sample values shown per segment column. */
const SAMPLE_VALUES_PER_COLUMN = 3;
/** Reformat turns after an unusable text reply (a tool call or structured output gets one repair turn too). */
const PROPOSAL_REFORMAT_RETRIES = 1;

const replySchema = z.object({
  name: z.string().trim().min(1),
  description: z.string().trim().min(1),
  areas: z
    .array(
      z.object({
        archetype: z.string().trim().min(1),
        name: z.string().trim().min(1),
        description: z.string().trim().min(1),
        keywords: z.array(z.string()),
        focus: z.array(z.string()).default([]),
      }),
    )
    .min(1),
  context: z.array(z.string()).default([]),
});

const REPLY_SHAPE = `{"name": "short pack name", "description": "one sentence", "areas": [{"archetype": "durations", "name": "Time from opened_at to closed_at", "description": "one sentence naming tables and columns", "keywords": ["opened_at", "closed_at", "incidents"], "focus": ["what to measure, one line each"]}], "context": ["what is known about the warehouse, one line each"]}`;

function instructions(archetypes: readonly AnalysisArea[]): string {
  return [
    'You design an analysis pack for Assay, an engine that explores a SQL warehouse with queries and then analyses the evidence area by area.',
    `Propose between ${MIN_GENERATED_AREAS} and ${MAX_GENERATED_AREAS} analysis areas that fit THIS warehouse. Each area specialises one of these archetypes (use its id as "archetype"):`,
    ...archetypes.map((area) => `- ${area.id}: ${area.name}. ${area.description}`),
    '',
    'Rules:',
    `1. keywords: 3 to ${MAX_AREA_KEYWORDS} per area, each exactly a table name or a column name shown below (without the quotes SQL needs around some names), lower-case. They route the exploration's queries to the area, so choose the names the area's queries will touch.`,
    '2. Do not assume a business the names do not show: a table of tickets is not a purchase funnel, a table of sensor readings has no customers.',
    "3. Use durations only where two timestamps bound a record's life (opened, created or started before closed, resolved or completed), or where a column already holds a duration.",
    '4. name: a short title; description: one sentence naming the tables and columns; focus: up to six lines telling the analyst what to measure; context: up to twelve lines about the warehouse for the explorer.',
    "5. Take the team's description and goal into account when they are given: order the areas by how much they serve the goal, most important first.",
  ].join('\n');
}

/** The largest tables' columns with their roles and a few segment values: warehouse data, fenced, names quoted as SQL quotes them. */
function columnLines(facts: WarehouseFacts): string {
  const lines = facts.tables.map((table) => {
    const columns = table.columns.slice(0, COLUMNS_PER_TABLE).map((column) => {
      const role = column.role === 'time' ? `${column.timeRole === 'other' ? '' : `${column.timeRole} `}time` : column.role;
      const values =
        column.role === 'segment'
          ? [...new Set((table.schema.samples ?? []).map((row) => row[column.name]).filter((value) => typeof value === 'string'))].slice(
              0,
              SAMPLE_VALUES_PER_COLUMN,
            )
          : [];
      return `${promptIdentifier(column.name)} (${role}${column.status ? ', status' : ''}${values.length > 0 ? `: ${values.map((value) => JSON.stringify(value)).join(', ')}` : ''})`;
    });
    const more = table.columns.length > COLUMNS_PER_TABLE ? `, … ${table.columns.length - COLUMNS_PER_TABLE} more` : '';
    return `${promptTableName(table.schema)} | ${table.rows < 0 ? 'unknown' : table.rows} rows${table.lookup ? ' | lookup' : ''} | ${columns.join(', ')}${more}`;
  });
  return `Columns of the ${facts.tables.length} largest live tables (role in parentheses):\n${fenceData(lines.join('\n'))}`;
}

const CATALOG_HEADING = 'The table catalog (one line per table: name | columns | rows | joins | comment):';

/**
 * The catalog section within `targetTokens`: the catalog is rendered to what is left after its heading, so the
 * builder need not cut it (a cut would take the closing data marker and the "N more tables" note with it).
 */
function catalogSection(tables: readonly TableSchema[], targetTokens: number, family: TokenFamily): string {
  // +1: the two texts are estimated apart, and each estimate rounds up
  const headingTokens = estimateTokens(`${CATALOG_HEADING}\n`, family) + 1;
  return `${CATALOG_HEADING}\n${renderCatalog(tables, { budgetTokens: Math.max(0, targetTokens - headingTokens), tokenFamily: family }).text}`;
}

export interface ModelProposalInput {
  binding: LlmBinding;
  tables: readonly TableSchema[];
  facts: WarehouseFacts;
  archetypes: readonly AnalysisArea[];
  profile: SuggestedProfile;
  describe?: string | undefined;
  goal?: string | undefined;
  /** Renders and loads the proposal as a pack: a proposal the pack loader refuses is unusable too. */
  validatePack(proposal: PackProposal): void;
  signal?: AbortSignal | undefined;
  onLlmCall?: ((record: LlmCallRecord) => void) | undefined;
  /** @defaultValue `auto`: structured output or a tool call where the model has them */
  protocol?: ProtocolPreference | undefined;
}

export type ModelProposalOutcome = { ok: true; proposal: PackProposal; notes: string[] } | { ok: false; reason: string };

type ParsedReply = { ok: true; proposal: PackProposal; notes: string[] } | { ok: false; reason: string };

/** The reply as a proposal: ids from archetypes, keywords lower-cased with unknown names dropped (and noted). */
function parseReply(text: string, input: ModelProposalInput): ParsedReply {
  const candidates = parsedObjects(text);
  const candidate = candidates.find((object) => 'areas' in object) ?? candidates[0];
  if (!candidate) return { ok: false, reason: 'the reply holds no JSON object' };
  return acceptProposal(candidate, input);
}

/** A proposal object (tool arguments, structured output, or the JSON of a text reply) checked as a proposal and as a pack. */
function acceptProposal(candidate: unknown, input: ModelProposalInput): ParsedReply {
  const parsed = replySchema.safeParse(candidate);
  if (!parsed.success) return { ok: false, reason: describeIssues(parsed.error) };
  const notes: string[] = [];
  const used = new Map<string, number>();
  const areas: ProposedArea[] = parsed.data.areas.map((area, index) => {
    const seen = (used.get(area.archetype) ?? 0) + 1;
    used.set(area.archetype, seen);
    const lowered = [...new Set(area.keywords.map((keyword) => keyword.trim().toLowerCase()).filter(Boolean))];
    const keywords = lowered.filter((keyword) => input.facts.realNames.has(keyword)).slice(0, MAX_AREA_KEYWORDS);
    const dropped = lowered.filter((keyword) => !input.facts.realNames.has(keyword));
    if (dropped.length > 0) notes.push(`area "${area.name}": dropped keywords that are not table or column names: ${dropped.join(', ')}`);
    return {
      archetype: area.archetype,
      id: seen === 1 ? area.archetype : `${area.archetype}_${seen}`,
      name: cleanLine(area.name, MAX_NAME_CHARS),
      description: cleanLine(area.description, MAX_DESCRIPTION_CHARS),
      keywords,
      // the model's order is its ranking: first area first
      priority: MAX_GENERATED_AREAS + 4 - index,
      focus: area.focus.slice(0, MAX_FOCUS_LINES).map((line) => cleanLine(line, 600)),
    };
  });
  const proposal: PackProposal = {
    name: cleanLine(parsed.data.name, MAX_NAME_CHARS),
    description: cleanLine(parsed.data.description, MAX_DESCRIPTION_CHARS),
    areas,
    // the team's own words go into the base context, not here
    context: parsed.data.context.slice(0, MAX_CONTEXT_LINES).map((line) => cleanLine(line, 1_000)),
    profile: input.profile,
  };
  const problems = checkProposal(proposal, { realNames: input.facts.realNames, archetypes: input.archetypes.map((area) => area.id) });
  if (problems.length > 0) return { ok: false, reason: problems.join('; ') };
  try {
    input.validatePack(proposal);
  } catch (error) {
    if (error instanceof AssayError) return { ok: false, reason: error.message };
    throw error;
  }
  return { ok: true, proposal, notes };
}

export async function proposeWithModel(input: ModelProposalInput): Promise<ModelProposalOutcome> {
  const { entry } = input.binding;
  const catalogBudget = catalogBudgetTokens(entry.contextWindow);
  const team = [
    input.describe ? `What the team says about the data: ${input.describe}` : 'The team gave no description of the data.',
    input.goal ? `What the team wants to learn: ${input.goal}` : 'The team gave no goal: propose the areas that best fit the data.',
  ].join('\n');
  const sections: PromptSection[] = [
    { id: 'instructions', role: 'system', text: instructions(input.archetypes), priority: 100, shrink: 'none' },
    { id: 'team', role: 'user', text: team, priority: 90, shrink: 'truncate', minTokens: 64 },
    {
      id: 'catalog',
      role: 'user',
      text: catalogSection(input.tables, catalogBudget, entry.family),
      priority: 60,
      shrink: { compact: (_text, targetTokens) => catalogSection(input.tables, targetTokens, entry.family) },
      minTokens: 256,
    },
    { id: 'columns', role: 'user', text: columnLines(input.facts), priority: 50, shrink: 'truncate', minTokens: 128 },
    {
      id: 'ask',
      role: 'user',
      text: `Reply with exactly one JSON object of this shape and nothing else:\n${REPLY_SHAPE}`,
      priority: 95,
      shrink: 'none',
    },
  ];
  type Accepted = Extract<ParsedReply, { ok: true }>;
  const unwrap = (reply: ParsedReply) => (reply.ok ? { ok: true as const, value: reply } : reply);
  const spec: AnswerSpec<Accepted> = {
    tools: [
      {
        name: 'propose_pack',
        description: 'Propose the analysis pack: its name, description, areas and what is known about the warehouse.',
        schema: replySchema,
        accept: (value) => unwrap(acceptProposal(value, input)),
      },
    ],
    fromText: (text) => unwrap(parseReply(text, input)),
    textNudge: (reason) =>
      `That reply cannot be used: ${reason}. Reply again with only the corrected JSON object of the shape above; every keyword must be a table or column name from the lists.`,
    textRetries: PROPOSAL_REFORMAT_RETRIES,
  };
  const request = answerRequest(spec, entry, input.protocol ?? 'auto');
  let firstReason = '';
  const outcome = await askForAnswer({
    spec,
    request,
    sections,
    onRejected: (attempt, reason) => {
      if (attempt === 1) firstReason = reason;
    },
    call: async (promptSections, attempt) =>
      (
        await callLlm({
          provider: input.binding.provider,
          catalogEntry: entry,
          sections: promptSections,
          maxOutputTokens: PROPOSAL_MAX_OUTPUT_TOKENS,
          temperature: 0,
          phase: 'other',
          signal: input.signal,
          answer: request,
          attempt,
          ...(input.onLlmCall ? { onRecord: input.onLlmCall } : {}),
        })
      ).response,
  });
  if (!outcome.ok) return { ok: false, reason: outcome.reason };
  if (outcome.attempts === 1) return outcome.value;
  return {
    ...outcome.value,
    notes: [`the model's first reply was unusable (${firstReason}); its reformatted reply was used`, ...outcome.value.notes],
  };
}

/** For callers that want the reason of an unexpected failure as text. */
export function proposalFailureNote(reason: string): string {
  return `the model's proposal was unusable after one reformat retry (${reason}); the areas were derived from the schema without a model`;
}
