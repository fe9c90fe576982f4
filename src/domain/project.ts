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

export const projectSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - only (1-64)'),
  name: z.string().min(1),
  description: z.string().default(''),
  /** Domain pack slug, and optionally its category. */
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
  schema_index: schemaIndexStateSchema.default({ status: 'pending_indexing' }),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Project = z.infer<typeof projectSchema>;

export function canStartDiscovery(project: Pick<Project, 'state'>): boolean {
  return (project.state ?? 'ready') === 'ready';
}
