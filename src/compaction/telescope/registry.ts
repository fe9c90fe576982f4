/**
 * The strategy registry: named, versioned ways of compacting a node of the telescope tree, read from
 * `strategies.json` and validated when first used (a bad registry stops start-up with the field at fault).
 * Deterministic strategies (`tier: none`) need no model; `fast`/`strong` ones name the model tier they run on.
 */
import { z } from 'zod';
import { ConfigError } from '../../errors/index.js';
import registryFile from './strategies.json' with { type: 'json' };

export const strategyTierSchema = z.enum(['none', 'fast', 'strong']);
export type StrategyTier = z.infer<typeof strategyTierSchema>;

export const compactionStrategySchema = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9_]{1,40}$/, 'snake_case, 2-41 characters'),
    version: z.number().int().min(1),
    tier: strategyTierSchema,
    levels: z.array(z.number().int().min(1).max(3)).min(1),
    description: z.string().min(1),
    /** Output is cut to this many characters, whatever produced it. */
    max_output_chars: z.number().int().min(50).max(100_000),
    /** Model output cap for LLM strategies. */
    max_output_tokens: z.number().int().min(16).max(8_192).optional(),
    /** Template with {{CONTENT}}, {{KIND}} and {{MAX_WORDS}}; required for LLM strategies. */
    prompt: z.string().min(1).optional(),
  })
  .refine((strategy) => strategy.tier === 'none' || (strategy.prompt !== undefined && strategy.max_output_tokens !== undefined), {
    message: 'a strategy that uses a model needs "prompt" and "max_output_tokens"',
    path: ['prompt'],
  });
export type CompactionStrategy = z.infer<typeof compactionStrategySchema>;

const registrySchema = z.object({ $comment: z.string().optional(), strategies: z.array(compactionStrategySchema).min(1) });

/** The strategies every tree uses; at least these must be in the registry. */
export const REQUIRED_STRATEGIES = ['result_digest', 'schema_signature', 'audit_findings', 'narrative_summary'] as const;
export type StrategyName = (typeof REQUIRED_STRATEGIES)[number];

export interface StrategyRegistry {
  get(name: StrategyName): CompactionStrategy;
  all(): readonly CompactionStrategy[];
}

/** Validates a registry document; throws a ConfigError naming the strategy and field at fault. */
export function parseStrategyRegistry(document: unknown, source = 'src/compaction/telescope/strategies.json'): StrategyRegistry {
  const parsed = registrySchema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(
      `compaction strategy registry ${source}: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'}`,
    );
  }
  const byName = new Map<string, CompactionStrategy>();
  for (const strategy of parsed.data.strategies) {
    if (byName.has(strategy.name))
      throw new ConfigError(`compaction strategy registry ${source}: strategy "${strategy.name}" is defined twice`);
    byName.set(strategy.name, strategy);
  }
  for (const name of REQUIRED_STRATEGIES) {
    if (!byName.has(name))
      throw new ConfigError(`compaction strategy registry ${source}: strategy "${name}" is missing (the telescope tree uses it)`);
  }
  return {
    get: (name) => byName.get(name) as CompactionStrategy,
    all: () => [...byName.values()],
  };
}

let shipped: StrategyRegistry | undefined;

/** The registry shipped with Assay, validated once. */
export function shippedStrategies(): StrategyRegistry {
  shipped ??= parseStrategyRegistry(registryFile);
  return shipped;
}
