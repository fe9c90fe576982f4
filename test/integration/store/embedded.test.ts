import { join } from 'node:path';
import { createEmbeddedRunStore, type RunStore } from '../../../src/store/index.js';
import { runStoreContract } from './contract.js';
import { tempDir } from '../../support/temp-dir.js';

const directories = new WeakMap<RunStore, string>();

function openIn(dir: string): RunStore {
  const store = createEmbeddedRunStore({ dir });
  directories.set(store, dir);
  return store;
}

runStoreContract('embedded files', async () => openIn(tempDir('assay-store-')), {
  async reopen(store) {
    const dir = directories.get(store) as string;
    await store.close();
    return openIn(dir);
  },
});
