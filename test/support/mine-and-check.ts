/**
 * Mines a warehouse the way the mining stage does (embedded defaults: the local embedder) and checks
 * every finding's claim with the engine's independent recount: what a test asserts about findings, and
 * that each one holds when recounted.
 */
import { checkClaim } from '../../src/discovery/claims/check-claim.js';
import { DEFAULT_MINING_SETTINGS, type MiningOutcome, type MiningSettings, mineWarehouse } from '../../src/discovery/mining/mine.js';
import { packVocabulary } from '../../src/discovery/mining/pack-vocabulary.js';
import type { PackMining } from '../../src/discovery/packs/pack-schema.js';
import { renderClaim } from '../../src/discovery/claims/claim-text.js';
import type { MinedFinding } from '../../src/domain/index.js';
import { createLocalEmbedder } from '../../src/embed/local.js';
import { discoverSchema } from '../../src/schema/schema-discovery.js';
import type { Warehouse } from '../../src/warehouse/port.js';

export interface MinedAndChecked {
  outcome: MiningOutcome;
  findings: MinedFinding[];
  /** `F3 <statement>: <verdict> (<reasoning>)` for every finding whose recount is not `confirmed`. */
  unconfirmed: string[];
  /** A finding's title and description, for matching by words. */
  text(finding: MinedFinding): string;
}

export async function mineAndCheck(
  warehouse: Warehouse,
  options: { goal?: string; description?: string; mining?: PackMining; settings?: Partial<MiningSettings>; check?: number } = {},
): Promise<MinedAndChecked> {
  const tables = await discoverSchema(warehouse);
  const vocabulary = packVocabulary(options.mining, tables);
  const outcome = await mineWarehouse({
    warehouse,
    embedder: createLocalEmbedder(),
    tables,
    goal: options.goal ?? '',
    description: options.description ?? '',
    nouns: vocabulary.nouns,
    labels: vocabulary.labels,
    outcomes: vocabulary.outcomes,
    settings: { ...DEFAULT_MINING_SETTINGS, ...options.settings },
  });
  const unconfirmed: string[] = [];
  for (const finding of outcome.findings.slice(0, options.check ?? outcome.findings.length)) {
    const checked = await checkClaim({
      warehouse,
      tables,
      claim: finding.claim,
      minSupport: DEFAULT_MINING_SETTINGS.minSupport,
      timeoutMs: 30_000,
    });
    if (checked.status !== 'confirmed') unconfirmed.push(`${finding.id} ${finding.statement}: ${checked.status} (${checked.reasoning})`);
  }
  const text = (finding: MinedFinding) => {
    const rendered = renderClaim(finding.claim);
    return `${rendered.title} ${rendered.description}`;
  };
  return { outcome, findings: outcome.findings, unconfirmed, text };
}
