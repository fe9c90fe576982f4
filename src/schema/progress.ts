/** Progress of schema discovery and index builds, in the phases stored on the project's schema_index state. */
import type { SchemaIndexState } from '../domain/index.js';

export type SchemaIndexPhase = NonNullable<SchemaIndexState['phase']>;

export interface SchemaIndexProgress {
  phase: SchemaIndexPhase;
  /** Units finished in this phase (tables, or texts while embedding). */
  done: number;
  total: number;
}

export type SchemaProgressListener = (progress: SchemaIndexProgress) => void;
