import { describe, it } from 'vitest';
import { createQdrantVectorIndex } from '../../../src/vector/qdrant.js';
import { vectorIndexContract } from './contract.js';

const qdrantUrl = process.env.QDRANT_URL;

if (qdrantUrl) {
  vectorIndexContract('qdrant', { create: async () => createQdrantVectorIndex({ url: qdrantUrl, apiKey: process.env.QDRANT_API_KEY }) });
} else {
  console.log(
    'skipping the Qdrant vector contract: QDRANT_URL is not set (docker compose up qdrant, then QDRANT_URL=http://localhost:6333)',
  );
  describe.skipIf(!qdrantUrl)('the qdrant vector index (QDRANT_URL not set)', () => {
    it('passes the vector index contract', () => undefined);
  });
}
