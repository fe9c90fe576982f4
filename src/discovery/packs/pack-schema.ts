/**
 * The domain-pack format: the zod schema of `domain-packs/<slug>/pack.json`, the shape of a loaded
 * pack (manifest plus prompt texts), and the fixed list of template variables each prompt kind may use.
 */
import { z } from 'zod';

/** Area and category ids appear in insight ids (`{area}-{n}`), job ids and file names: keep them plain. */
const SNAKE_CASE_ID = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
/** Pack slugs are directory names and CLI arguments (`system-test`). */
const PACK_SLUG = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
/** Semantic version, with optional pre-release and build parts. */
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;
/** A prompt file name inside `prompts/` (no directories, so a pack cannot read outside itself). */
const PROMPT_FILE = /^[a-z][a-z0-9_]*\.md$/;
/** Keywords route exploration steps to areas by case-insensitive match, so they are stored lower-case. */
const MIN_AREA_KEYWORDS = 3;

const nonEmptyText = z.string().trim().min(1, 'must not be empty');

const keywordSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .refine((keyword) => keyword === keyword.toLowerCase(), { message: 'keywords must be lower-case' });

export const areaManifestSchema = z.strictObject({
  id: z.string().regex(SNAKE_CASE_ID, 'must be snake_case (a-z, 0-9, _)'),
  name: nonEmptyText,
  description: nonEmptyText,
  keywords: z
    .array(keywordSchema)
    .min(MIN_AREA_KEYWORDS, `expected at least ${MIN_AREA_KEYWORDS} items`)
    .refine((keywords) => new Set(keywords).size === keywords.length, { message: 'keywords must be unique' }),
  /** Higher runs first; ties are broken by id so the order is deterministic. */
  priority: z.number().int('must be an integer'),
  /**
   * Kinds of mined finding this area is evidence for (docs/mining.md). Absent: decided from the area's
   * name, description and keywords.
   */
  finding_kinds: z
    .array(z.enum(['difference', 'share', 'trend', 'shift', 'correlation', 'contribution', 'outlier']))
    .min(1)
    .optional(),
  prompt_file: z.string().regex(/^analysis_[a-z][a-z0-9_]*\.md$/, 'must be analysis_<id>.md'),
});
export type AreaManifest = z.infer<typeof areaManifestSchema>;

export const categoryManifestSchema = z.strictObject({
  id: z.string().regex(SNAKE_CASE_ID, 'must be snake_case (a-z, 0-9, _)'),
  name: nonEmptyText,
  description: nonEmptyText,
  prompt_file: z
    .string()
    .regex(/^exploration_context_[a-z][a-z0-9_]*\.md$/, 'must be exploration_context_<category>.md')
    .optional(),
  /** Extra areas for this category; an area with a base area's id replaces it. */
  areas: z.array(areaManifestSchema).default([]),
});
export type CategoryManifest = z.infer<typeof categoryManifestSchema>;

/**
 * The profile form is described by a JSON Schema object (draft 2020-12 style). Only its outer shape
 * is checked here: it must describe an object with named properties, each itself a schema object.
 */
export const profileSchemaSchema = z.looseObject({
  type: z.literal('object', { message: 'must be "object"' }),
  properties: z.record(z.string(), z.looseObject({}), { message: 'must be an object of property schemas' }),
});

/** A condition on a column, as a pack writes it. */
const packConditionSchema = z.strictObject({
  column: z.string().min(1),
  op: z.enum(['=', '!=', '>', '>=', '<', '<=', 'is_null', 'not_null']),
  value: z.union([z.string(), z.number(), z.boolean()]).optional(),
});

/**
 * An outcome the pack's domain defines on a table, from what points at its rows: checkout abandonment
 * (a session that reached checkout with no order), day-7 retention (a player with a session 7 days
 * after install), a first purchase within three days of install. Mined like any outcome when the
 * warehouse has the tables; ignored otherwise.
 */
export const packOutcomeSchema = z.strictObject({
  id: z.string().regex(SNAKE_CASE_ID, 'must be snake_case (a-z, 0-9, _)'),
  label: nonEmptyText,
  /** The table whose rows the rate is over (bare name). */
  table: z.string().min(1),
  /** The rows pointing at it that the outcome looks for. */
  child: z.strictObject({
    table: z.string().min(1),
    /** The child's column holding the table's key. */
    link: z.string().min(1),
    /** The table's key column. */
    key: z.string().min(1),
    window: z
      .strictObject({ since: z.string().min(1), at: z.string().min(1), from_days: z.number().int(), to_days: z.number().int() })
      .optional(),
    where: z.array(packConditionSchema).max(4).optional(),
  }),
  /** `true`: the rate of rows with such a child; `false`: without one (abandonment, churn). */
  present: z.boolean().default(true),
  /** Only rows meeting these count (sessions that reached checkout). */
  among: z.array(packConditionSchema).max(4).default([]),
  /** Which way the rate is better (abandonment: `lower`); unset, no side is called a problem. */
  better: z.enum(['higher', 'lower']).optional(),
});
export type PackOutcome = z.infer<typeof packOutcomeSchema>;

/** The pack's domain words and outcomes for mining (docs/mining.md). Every field is optional. */
export const packMiningSchema = z.strictObject({
  /** Plural noun of a row, by bare table name: `{"sessions": "sessions", "level_progress": "level attempts"}`. */
  nouns: z.record(z.string(), nonEmptyText).default({}),
  /** Words for columns, by `table.column`: `{"orders.total_amount": "revenue"}`. */
  labels: z.record(z.string(), nonEmptyText).default({}),
  outcomes: z.array(packOutcomeSchema).default([]),
  /** Which way a column's measure is better, by `table.column`: `{"orders.total_amount": "higher"}`. */
  better: z.record(z.string(), z.enum(['higher', 'lower'])).default({}),
});
export type PackMining = z.infer<typeof packMiningSchema>;

export const packManifestSchema = z.strictObject({
  slug: z.string().regex(PACK_SLUG, 'must be kebab-case (a-z, 0-9, -)'),
  name: nonEmptyText,
  description: nonEmptyText,
  version: z.string().regex(SEMVER, 'must be a semantic version like 1.0.0'),
  /** Hidden packs (system-test) are listed and loadable only when explicitly enabled. */
  hidden: z.boolean().default(false),
  categories: z.array(categoryManifestSchema).default([]),
  areas: z.array(areaManifestSchema).min(1, 'expected at least 1 item'),
  prompts: z.strictObject({
    base_context: z.string().regex(PROMPT_FILE, 'must be a .md file name inside prompts/'),
    exploration: z.string().regex(PROMPT_FILE, 'must be a .md file name inside prompts/'),
    recommendations: z.string().regex(PROMPT_FILE, 'must be a .md file name inside prompts/'),
  }),
  profile_schema: profileSchemaSchema,
  mining: packMiningSchema.default({ nouns: {}, labels: {}, outcomes: [], better: {} }),
});
export type PackManifest = z.infer<typeof packManifestSchema>;

/** A loaded analysis area: the manifest entry plus its prompt text. */
export const analysisAreaSchema = areaManifestSchema.extend({ prompt: z.string() });
export type AnalysisArea = z.infer<typeof analysisAreaSchema>;

/** A loaded category: its exploration context text (empty when it has none) and its extra areas. */
export const packCategorySchema = categoryManifestSchema.omit({ areas: true }).extend({
  exploration_context: z.string(),
  areas: z.array(analysisAreaSchema),
});
export type PackCategory = z.infer<typeof packCategorySchema>;

/** A loaded pack. `prompts` holds the prompt texts (not file names); `source_dir` is where it was read from. */
export const domainPackSchema = packManifestSchema.omit({ categories: true, areas: true, prompts: true }).extend({
  categories: z.array(packCategorySchema),
  areas: z.array(analysisAreaSchema),
  prompts: z.object({ base_context: z.string(), exploration: z.string(), recommendations: z.string() }),
  source_dir: z.string(),
});
export type DomainPack = z.infer<typeof domainPackSchema>;

export type PromptKind = 'base_context' | 'exploration' | 'exploration_context' | 'analysis' | 'recommendations';

/**
 * The variables the engine fills, per prompt kind. A prompt may use only these; the budget variables
 * are rendered from the code constants so prompt text and engine limits cannot drift apart.
 */
export const ALLOWED_VARIABLES = {
  base_context: ['PROFILE', 'PREVIOUS_CONTEXT'],
  exploration: [
    'DATASET',
    'DIALECT',
    'SCHEMA_INFO',
    'FILTER_RULE',
    'ANALYSIS_AREAS',
    'MAX_STEPS',
    'MIN_STEPS',
    'MAX_LOOKUP_TABLES_PER_CALL',
    'MAX_LOOKUPS_PER_RUN',
    'MAX_SEARCHES_PER_RUN',
    'DEFAULT_SEARCH_TOP_K',
    'MAX_SEARCH_TOP_K',
    'CATEGORY_CONTEXT',
  ],
  exploration_context: [],
  analysis: ['AREA_NAME', 'AREA_DESCRIPTION', 'DATASET', 'TOTAL_QUERIES', 'QUERY_RESULTS'],
  recommendations: ['DISCOVERY_DATE', 'INSIGHTS_SUMMARY', 'INSIGHTS_DATA'],
} as const satisfies Record<PromptKind, readonly string[]>;

/**
 * Variables a prompt of each kind must use: without them the model would never see the catalog,
 * the evidence or the insights, and the prompt would still "work" while producing nothing useful.
 */
export const REQUIRED_VARIABLES = {
  base_context: ['PROFILE', 'PREVIOUS_CONTEXT'],
  exploration: ['SCHEMA_INFO', 'FILTER_RULE', 'ANALYSIS_AREAS', 'CATEGORY_CONTEXT'],
  exploration_context: [],
  analysis: ['QUERY_RESULTS'],
  recommendations: ['INSIGHTS_DATA'],
} as const satisfies Record<PromptKind, readonly string[]>;
