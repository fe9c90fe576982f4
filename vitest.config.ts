import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Integration tests start real servers (PostgreSQL, the LLM simulator); give them room on 2 cores.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // both cores: most integration files wait on servers, simulators and child processes (vitest's
    // default, cores − 1, ran the suite one file at a time here: 1,228 s)
    maxWorkers: 2,
    // every test file removes the temporary directories it made (test/support/temp-dir.ts)
    setupFiles: ['test/support/cleanup-setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Unit tests share their fork's module graph: no fresh process and re-import per file
          // (a full unit run takes ~27 s instead of ~95 s on 2 cores). They hold no process-wide
          // state between files; one that needs it belongs in test/integration.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: ['test/unit/**', '**/node_modules/**'],
        },
      },
    ],
  },
});
