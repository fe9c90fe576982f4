import { z } from 'zod';

/** Project lifecycle (discovery-lifecycle seed). Only `ready` allows discovery; a missing state means ready. */
export const projectStateSchema = z.enum(['pack_generation_pending', 'pack_generation', 'pack_generation_done', 'ready']);
export type ProjectState = z.infer<typeof projectStateSchema>;

export const schemaIndexStatusSchema = z.enum(['pending_indexing', 'indexing', 'ready', 'failed', 'needs_reindex']);
export type SchemaIndexStatus = z.infer<typeof schemaIndexStatusSchema>;

export const schemaIndexStateSchema = z.object({
  status: schemaIndexStatusSchema,
  /** Hash of the warehouse config (credentials excluded) the index was built from. */
  warehouse_hash: z.string().optional(),
  table_count: z.number().int().optional(),
  phase: z.enum(['listing_tables', 'schema_discovery', 'describing_tables', 'embedding', 'done']).optional(),
  tables_done: z.number().int().optional(),
  tables_total: z.number().int().optional(),
  updated_at: z.string().optional(),
  error: z.string().optional(),
});
export type SchemaIndexState = z.infer<typeof schemaIndexStateSchema>;

export const tenantFilterSchema = z.object({
  field: z
    .string()
    .min(1)
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a plain column name'),
  value: z.union([z.string(), z.number()]),
});

/** A reference to a credential held by the secret provider (environment variable or mounted file). */
export const secretRefSchema = z
  .string()
  .regex(/^secret:[A-Za-z0-9_.-]{1,128}$/, 'a secret reference: secret:NAME (letters, digits, _ . -)');
export type SecretRef = z.infer<typeof secretRefSchema>;

export const projectSecretsSchema = z
  .object({
    warehouse_password: secretRefSchema.optional(),
    llm_api_key: secretRefSchema.optional(),
    fast_llm_api_key: secretRefSchema.optional(),
    embedder_api_key: secretRefSchema.optional(),
  })
  .strict();
export type ProjectSecrets = z.infer<typeof projectSecretsSchema>;

/**
 * A pack as a document of files, keyed by their path inside a pack directory (`pack.json`,
 * `prompts/<name>.md`): what `assay pack generate` writes and what the pack loader reads back.
 */
export const packFilesSchema = z.record(z.string(), z.string());
export type PackFilesDocument = z.infer<typeof packFilesSchema>;

/** A generated pack waiting for the user's accept (state `pack_generation_done`). */
export const packDraftSchema = z.object({
  slug: z.string(),
  files: packFilesSchema,
  /** Content hash of the loaded draft (16 hex characters of sha256). */
  hash: z.string(),
  /** `offline`: derived from the schema without a model; `llm`: proposed by the model and validated. */
  generator: z.enum(['offline', 'llm']),
  model: z.string().optional(),
  /** What the generator wants the user to know (a fallback, keywords dropped …). */
  notes: z.array(z.string()).default([]),
  describe: z.string().optional(),
  goal: z.string().optional(),
  /** Profile values the generator proposes; applied on accept when the project has no profile. */
  profile: z.record(z.string(), z.unknown()).default({}),
  generated_at: z.string(),
});
export type PackDraft = z.infer<typeof packDraftSchema>;

/** A frozen, numbered pack version: never changed once written; runs name it `project:<id>@<version>`. */
export const packVersionSchema = z.object({
  version: z.number().int().min(1),
  slug: z.string(),
  hash: z.string(),
  files: packFilesSchema,
  /** `generated`: the draft as generated; `edited`: a document the user sent. */
  source: z.enum(['generated', 'edited']),
  accepted_at: z.string(),
});
export type PackVersion = z.infer<typeof packVersionSchema>;

/** The last pack generation: running (since when), done, or failed with the reason. */
export const packGenerationStatusSchema = z.object({
  status: z.enum(['running', 'done', 'failed']),
  started_at: z.string(),
  finished_at: z.string().optional(),
  error: z.string().optional(),
});
export type PackGenerationStatus = z.infer<typeof packGenerationStatusSchema>;

export const projectSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - only (1-64)'),
  name: z.string().min(1),
  description: z.string().default(''),
  /** Domain pack: a shipped slug, or `project:<id>@<version>` for a frozen version of the project's own pack. */
  domain: z.string().min(1),
  category: z.string().optional(),
  /** Warehouse URL with any password removed; credentials come from config/secrets, never stored here. */
  warehouse: z.object({
    url: z.string().min(1),
    datasets: z.array(z.string()).default([]),
    filter: tenantFilterSchema.optional(),
  }),
  /** The project's analysis model (`anthropic:MODEL`, `openai:MODEL`, `openai-compatible:URL#MODEL`, `bedrock:ID`, `offline:analyst`). */
  llm: z.string().min(1),
  /** The project's fast tier (SQL fixes, blurbs, compaction); the analysis model when absent. */
  fast_llm: z.string().min(1).optional(),
  embedder: z.string().default('local'),
  /**
   * Credentials by reference only (`secret:NAME`), resolved by the secret provider when a job opens
   * the project's clients; a resolved value is never written to a document, payload, log or report.
   */
  secrets: projectSecretsSchema.default({}),
  profile: z.record(z.string(), z.unknown()).default({}),
  state: projectStateSchema.default('ready'),
  /** The generated pack awaiting accept (pack-generation wizard). */
  pack_draft: packDraftSchema.optional(),
  /** The project's own pack versions, oldest first; `domain` names the one new runs use. */
  pack_versions: z.array(packVersionSchema).default([]),
  /** The version `domain` names, when it names one of `pack_versions`. */
  pack_version: z.number().int().min(1).optional(),
  pack_generation: packGenerationStatusSchema.optional(),
  schema_index: schemaIndexStateSchema.default({ status: 'pending_indexing' }),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Project = z.infer<typeof projectSchema>;

export function canStartDiscovery(project: Pick<Project, 'state'>): boolean {
  return (project.state ?? 'ready') === 'ready';
}
