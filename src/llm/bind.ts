/** A model spec bound to its provider client and its catalog entry (window, output cap, prices). */
import type { AssayConfig } from '../config/index.js';
import type { LlmBinding } from './catalog.js';
import type { Logger } from '../logging/index.js';
import { lookupModel } from './catalog.js';
import { createLlmProvider } from './factory.js';
import { warnIfDeprecated } from './model-warnings.js';
import type { OfflineBrain } from './providers/offline.js';

export function bindLlm(spec: string, config: AssayConfig, logger: Logger, offlineBrain: OfflineBrain): LlmBinding {
  const provider = createLlmProvider(spec, config, { offlineBrain });
  const { entry, known } = lookupModel(spec, config.models);
  if (!known) {
    logger.warn(
      { llm: spec, contextWindow: entry.contextWindow, maxOutputTokens: entry.maxOutputTokens },
      'model not in the catalog: using conservative limits (override them under "models" in the config)',
    );
  }
  warnIfDeprecated(spec, entry, logger);
  return { provider, entry };
}
