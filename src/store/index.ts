/** RunStore: where projects, runs, steps, results and feedback live. Embedded files by default; MongoDB in the fleet. */
import { join } from 'node:path';
import { ConfigError } from '../errors/index.js';
import { createEmbeddedRunStore } from './embedded.js';
import type { RunStore } from './port.js';

export type { RunStore } from './port.js';
export { createEmbeddedRunStore } from './embedded.js';

export function createRunStore(spec: string, options: { dataDir: string }): RunStore {
  if (spec === 'embedded') return createEmbeddedRunStore({ dir: join(options.dataDir, 'store') });
  if (spec.startsWith('mongodb://') || spec.startsWith('mongodb+srv://')) {
    throw new ConfigError('the MongoDB run store is not implemented yet: unset MONGO_URL to use the embedded store');
  }
  throw new ConfigError(`store "${spec}" is not recognised: use "embedded" or a mongodb:// URL (MONGO_URL)`);
}
