import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeConfig, loadConfig, redactUrl } from '../../../src/config/index.js';
import { ConfigError } from '../../../src/errors/index.js';
import { tempDir } from '../../support/temp-dir.js';

const emptyDir = () => tempDir('assay-config-');

describe('loadConfig', () => {
  describe('when nothing is configured', () => {
    it('returns embedded defaults that need no server and no key', () => {
      const config = loadConfig({ env: {}, cwd: emptyDir() });
      expect(config.warehouse.startsWith('duckdb:')).toBe(true);
      expect(config.llm).toBe('offline:analyst');
      expect(config.embedder).toBe('local');
      expect(config.vectorIndex).toBe('embedded');
      expect(config.store).toBe('embedded');
      expect(config.run.analysisBudgetTokens).toBe(200_000);
      expect(config.sql.maxRows).toBe(10_000);
    });
  });

  describe('when the environment sets values', () => {
    it('parses numbers and booleans and nests them', () => {
      const config = loadConfig({
        env: { ASSAY_MAX_STEPS: '12', ASSAY_ENABLE_SYSTEM_TEST: 'yes', ASSAY_LLM: 'anthropic:claude-sonnet-4-5' },
        cwd: emptyDir(),
      });
      expect(config.run.maxSteps).toBe(12);
      expect(config.enableSystemTestPack).toBe(true);
      expect(config.llm).toBe('anthropic:claude-sonnet-4-5');
    });

    it('names the variable when a number is not a number', () => {
      expect(() => loadConfig({ env: { ASSAY_MAX_STEPS: 'lots' }, cwd: emptyDir() })).toThrowError(
        /ASSAY_MAX_STEPS must be a whole number/,
      );
    });

    it('names the variable and the expectation when a value is out of range', () => {
      const attempt = () => loadConfig({ env: { ASSAY_MAX_STEPS: '0' }, cwd: emptyDir() });
      expect(attempt).toThrowError(ConfigError);
      expect(attempt).toThrowError(/ASSAY_MAX_STEPS \(run\.maxSteps\)/);
    });

    it('rejects an unknown log level naming LOG_LEVEL', () => {
      expect(() => loadConfig({ env: { LOG_LEVEL: 'loud' }, cwd: emptyDir() })).toThrowError(/LOG_LEVEL/);
    });

    it('refuses min steps above max steps', () => {
      expect(() => loadConfig({ env: { ASSAY_MAX_STEPS: '5', ASSAY_MIN_STEPS: '9' }, cwd: emptyDir() })).toThrowError(/minSteps/);
    });
  });

  describe('when a config file is present', () => {
    it('reads YAML from the working directory and lets the environment win', () => {
      const dir = emptyDir();
      writeFileSync(join(dir, 'assay.config.yaml'), 'llm: openai:gpt-4.1-mini\nrun:\n  maxSteps: 7\n');
      const config = loadConfig({ env: { ASSAY_LLM: 'offline:analyst' }, cwd: dir });
      expect(config.run.maxSteps).toBe(7);
      expect(config.run.minSteps).toBe(0);
      expect(config.llm).toBe('offline:analyst');
    });

    it('reports invalid JSON with the file path', () => {
      const dir = emptyDir();
      writeFileSync(join(dir, 'assay.config.json'), '{ nope');
      expect(() => loadConfig({ env: {}, cwd: dir })).toThrowError(/assay\.config\.json is not valid JSON/);
    });

    it('refuses a mistyped key, naming it and the setting it was probably meant to be', () => {
      const dir = emptyDir();
      writeFileSync(
        join(dir, 'assay.config.yaml'),
        'warehous: duckdb:shop.duckdb\nrun:\n  maxStep: 7\nwarehouseFiles:\n  events: events.csv\n',
      );
      expect(() => loadConfig({ env: {}, cwd: dir })).toThrowError(
        /"warehous" is not a setting \(did you mean "warehouse"\?\); "run\.maxStep" is not a setting \(did you mean "run\.maxSteps"\?\)/,
      );
    });

    it('fails when an explicitly named file is missing', () => {
      expect(() => loadConfig({ env: { ASSAY_CONFIG: 'missing.yaml' }, cwd: emptyDir() })).toThrowError(/does not exist/);
    });
  });

  describe('when printing the config', () => {
    it('masks keys and URL passwords', () => {
      const config = loadConfig({
        env: {
          ANTHROPIC_API_KEY: 'sk-ant-secret',
          ASSAY_WAREHOUSE: 'postgres://bob:hunter2@db:5432/shop',
          REDIS_URL: 'redis://:pw@r:6379',
        },
        cwd: emptyDir(),
      });
      const printed = JSON.stringify(describeConfig(config));
      expect(printed).not.toContain('sk-ant-secret');
      expect(printed).not.toContain('hunter2');
      expect(printed).toContain('postgres://bob:***@db:5432/shop');
    });

    it('redacts token query parameters', () => {
      expect(redactUrl('https://x/y?token=abc&q=1')).toBe('https://x/y?token=***&q=1');
    });
  });
});
