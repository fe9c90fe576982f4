/**
 * Runs before every test file (vitest `setupFiles`): the temporary directories the file made with
 * `tempDir` are removed when it ends. Vitest stops its worker processes without a clean exit, so an
 * exit hook alone would leave them all behind.
 */
import { afterAll } from 'vitest';
import { removeTempDirs } from './temp-dir.js';

afterAll(() => removeTempDirs());
