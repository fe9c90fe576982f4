/** RunStore: where projects, runs, steps, results, feedback, API keys and caches live. Embedded files by default; PostgreSQL for a fleet. */
import { join } from 'node:path';
import { redactUrl } from '../config/load.js';
import { ConfigError } from '../errors/index.js';
import { createEmbeddedRunStore } from './embedded.js';
import type { RunStore } from './port.js';

export type { RunStore } from './port.js';
export { createEmbeddedRunStore } from './embedded.js';

/** Opens the store a spec names: `embedded` (files under the data dir, one process), `postgres://…` (shared). */
export async function openRunStore(spec: string, options: { dataDir: string }): Promise<RunStore> {
  if (spec === 'embedded') return createEmbeddedRunStore({ dir: join(options.dataDir, 'store') });
  if (spec.startsWith('postgres://') || spec.startsWith('postgresql://')) {
    const { createPostgresRunStore } = await import('./postgres.js');
    return createPostgresRunStore({ url: spec });
  }
  if (spec.startsWith('mongodb://') || spec.startsWith('mongodb+srv://')) {
    const { createMongoRunStore } = await import('./mongo.js');
    return createMongoRunStore({ url: spec });
  }
  throw new ConfigError(
    `store "${redactUrl(spec)}" is not recognised: use "embedded", postgres://… (ASSAY_STORE) or mongodb://… (MONGO_URL)`,
  );
}
