/** What an API key may do: `read` < `run` < `admin` (each includes the ones before it). A plain list, so the CLI can check a flag without loading zod. */
export const API_KEY_SCOPES = ['read', 'run', 'admin'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export function isApiKeyScope(value: string): value is ApiKeyScope {
  return (API_KEY_SCOPES as readonly string[]).includes(value);
}
