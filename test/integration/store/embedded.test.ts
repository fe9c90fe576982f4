import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbeddedRunStore } from '../../../src/store/index.js';
import { runStoreContract } from './contract.js';

runStoreContract('embedded files', async () => createEmbeddedRunStore({ dir: mkdtempSync(join(tmpdir(), 'assay-store-')) }));
