import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors/index.js';
import { createEmbeddedRunStore } from '../../../src/store/index.js';
import { tempDir } from '../../support/temp-dir.js';

const CHILD = fileURLToPath(new URL('./hold-embedded-child.ts', import.meta.url));

describe('when a second process opens the embedded store', () => {
  it('is refused with the fix named, and may open it once the first process is gone', async () => {
    const dir = tempDir('assay-store-lock-');
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      child.on('exit', (code) => reject(new Error(`the holder exited early (${code})`)));
    });
    try {
      expect(() => createEmbeddedRunStore({ dir })).toThrow(ConfigError);
      expect(() => createEmbeddedRunStore({ dir })).toThrow(new RegExp(`in use by process ${child.pid}.*ASSAY_STORE=postgres://`));
    } finally {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    // the holder died without cleaning up: its lock is stale and is taken over
    const store = createEmbeddedRunStore({ dir });
    const again = createEmbeddedRunStore({ dir });
    await again.close();
    await store.close();
  });
});
