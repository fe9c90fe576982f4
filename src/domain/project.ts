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
  field: z.string().min(1).regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a plain column name'),
  value: z.union([z.string(), z.number()]),
});

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
  llm: z.string().min(1),
  embedder: z.string().default('local'),
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
