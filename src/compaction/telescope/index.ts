/** The telescope tree: hierarchical, cached, drill-down evidence for the analysing model (telescoping-compaction seed). */
export { CACHE_KEY_HASH_CHARS, COMPACT_CACHE_NAMESPACE, COMPACT_CACHE_TTL_MS, compactCacheKey, contentHash, nodeId } from './cache-key.js';
export {
  createCompactor,
  renderStrategyPrompt,
  type CompactionCache,
  type Compactor,
  type StrategyStats,
  type Summarizer,
} from './compactor.js';
export {
  MAX_EXPANSIONS_PER_PHASE,
  expandInstructions,
  MAX_NODES_PER_EXPANSION,
  expand,
  firstView,
  newDrillDownState,
  parseExpandRequest,
  type DrillDownState,
} from './drill-down.js';
export {
  REQUIRED_STRATEGIES,
  parseStrategyRegistry,
  shippedStrategies,
  type CompactionStrategy,
  type StrategyName,
  type StrategyRegistry,
} from './registry.js';
export {
  buildTelescopeTree,
  tableFamily,
  tablesRead,
  type AreaFindings,
  type AreaSelection,
  type Finding,
  type TelescopeNode,
  type TelescopeTree,
} from './tree.js';
