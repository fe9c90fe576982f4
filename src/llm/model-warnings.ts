/**
 * One warning per process for a deprecated model the configuration names. The catalog marks the models
 * their vendors retire (the Anthropic SDK's deprecation lists, gpt-tokenizer's flags); the defaults are
 * never among them, so the warning only appears when someone chose one. The SDK's own notice, which it
 * prints on every request, is filtered out (providers/sdk-warnings.ts).
 */
import { DEFAULT_MODELS, parseModelSpec, type ModelCatalogEntry } from './catalog.js';

const warned = new Set<string>();

function replacement(spec: string, tier: ModelCatalogEntry['tier']): string | undefined {
  const { provider } = parseModelSpec(spec);
  const defaults = (DEFAULT_MODELS as Record<string, Record<string, string> | undefined>)[provider];
  return defaults ? `${provider}:${defaults[tier]}` : undefined;
}

/** Logs the warning the first time `spec` is bound in this process; true when it did. */
export function warnIfDeprecated(
  spec: string,
  entry: Pick<ModelCatalogEntry, 'deprecated' | 'endOfLife' | 'tier'>,
  logger: { warn(fields: object, message: string): void },
): boolean {
  if (!entry.deprecated || warned.has(spec)) return false;
  warned.add(spec);
  const when = entry.endOfLife ? ` (end of life: ${entry.endOfLife})` : '';
  const instead = replacement(spec, entry.tier);
  logger.warn(
    { llm: spec, endOfLife: entry.endOfLife },
    `model "${spec}" is deprecated by its vendor${when}: choose a current model${instead ? `, e.g. ${instead}` : ''}`,
  );
  return true;
}
