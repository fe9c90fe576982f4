/** Vector indexes: the port, the adapters, and `createVectorIndex(spec)`, the one place a spec becomes an adapter. */
import { join } from 'node:path';
import { ConfigError } from '../errors/index.js';
import type { VectorIndex } from './port.js';
import { createEmbeddedVectorIndex } from './embedded.js';
import { createQdrantVectorIndex } from './qdrant.js';

export type * from './port.js';
export { createEmbeddedVectorIndex } from './embedded.js';
export { createQdrantVectorIndex, qdrantPointId } from './qdrant.js';

/** Where the embedded index keeps its files, inside the data directory. */
export const EMBEDDED_VECTOR_SUBDIR = 'vectors';

export function createVectorIndex(spec: string, options: { dataDir: string; apiKey?: string | undefined }): VectorIndex {
  if (spec === 'embedded') return createEmbeddedVectorIndex({ dir: join(options.dataDir, EMBEDDED_VECTOR_SUBDIR) });
  if (/^https?:\/\/\S+$/.test(spec)) return createQdrantVectorIndex({ url: spec, apiKey: options.apiKey });
  throw new ConfigError(`vector index "${spec}": expected "embedded" or a Qdrant URL such as http://localhost:6333 (QDRANT_URL)`);
}
