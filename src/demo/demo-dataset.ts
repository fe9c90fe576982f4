/** What one demo generator provides: the SQL that builds its tables and the patterns it plants. */
import type { DemoKind } from './demo-kind.js';
import type { PlantedPatternSpec } from './planted-pattern.js';

export interface DemoBuildOptions {
  /** The seed behind every random choice; SQL draws get it through the `rnd` macros, DDL-time choices from here. */
  seed: number;
  /** Multiplier on entity counts (customers, players, users, big ERP tables). 1 = the documented size. */
  scale: number;
}

export interface DemoDataset {
  kind: DemoKind;
  /**
   * Statements run in order inside one transaction, after the seeded `rnd`/`rnd2` macros exist.
   * Each element may hold several statements separated by `;`.
   */
  buildSql(options: DemoBuildOptions): string[];
  patterns: PlantedPatternSpec[];
}

/** Scales an entity count, never below `minimum` so tiny scales still produce a usable warehouse. */
export function scaledCount(base: number, scale: number, minimum = 1): number {
  return Math.max(minimum, Math.round(base * scale));
}
