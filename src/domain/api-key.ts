import { z } from 'zod';
import { API_KEY_SCOPES } from './api-key-scope.js';

export { API_KEY_SCOPES, isApiKeyScope, type ApiKeyScope } from './api-key-scope.js';

/** What an API key may do: `read` < `run` < `admin` (each includes the ones before it). */
export const apiKeyScopeSchema = z.enum(API_KEY_SCOPES);

/**
 * A stored API key. Only a hash of the secret part is kept; the key itself is shown once, at
 * creation. A revoked key keeps its record (with `revoked_at`) so listings show what was revoked.
 */
export const apiKeyRecordSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  name: z.string().min(1).max(200),
  scope: apiKeyScopeSchema,
  /** A key bound to a project sees only that project. */
  project_id: z.string().optional(),
  /** Hex SHA-256 of the key's secret part. */
  secret_hash: z.string().regex(/^[0-9a-f]{64}$/),
  created_at: z.string(),
  revoked_at: z.string().optional(),
});
export type ApiKeyRecord = z.infer<typeof apiKeyRecordSchema>;
