/** Pack generation could not produce a usable pack (too little structure in the warehouse, an unusable base pack). */
import { AssayError } from '../../../errors/index.js';

/** Coded `pack`: the CLI exits 78 and the API answers 422, like any other pack that cannot be loaded. */
export class PackGenerationError extends AssayError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('pack', `pack generation: ${message}`, details ? { details } : undefined);
  }
}
