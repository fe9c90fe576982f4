/**
 * A `--quiet` run prints no SDK notice: not the Anthropic SDK's deprecation notice (once per request
 * before), not the AWS SDK's Node-version notice. A deprecated model named by the user still gets one
 * warning of Assay's own. The CLI runs as its own process (SDK notices are per process) against the
 * LLM simulator served from this test.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoWarehouse } from '../../../src/demo/index.js';
import { createOfflineAnalyst } from '../../../src/llm/offline-analyst/index.js';
import { AWS_NODE_VERSION_NOTICE_SWITCH } from '../../../src/llm/providers/sdk-warnings.js';
import { startLlmSimulator, type LlmSimulator } from '../../../src/llm/simulator/index.js';

const REPO_ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

describe('when a discovery run is --quiet', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'assay-quiet-'));
  let simulator: LlmSimulator;
  let warehouse: string;

  beforeAll(async () => {
    const analyst = createOfflineAnalyst();
    simulator = await startLlmSimulator({
      brain: (call) =>
        analyst({ ...(call.system ? { system: call.system } : {}), messages: call.messages, maxOutputTokens: call.maxOutputTokens }),
    });
    warehouse = (await generateDemoWarehouse({ kind: 'ecommerce', scale: 0.2, out: join(workDir, 'shop.duckdb') })).path;
  }, 60_000);

  afterAll(async () => {
    await simulator?.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  /** The CLI in its own process; async, so this process keeps serving the simulator meanwhile. */
  function assay(args: readonly string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string; stdout: string }> {
    const { [AWS_NODE_VERSION_NOTICE_SWITCH]: _switch, ...inherited } = process.env;
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'assay.js'), ...args], {
      cwd: workDir,
      env: { ...inherited, ASSAY_DATA_DIR: join(workDir, `data-${Math.random().toString(36).slice(2)}`), NO_COLOR: '1', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
  }

  const run = (llm: string) => [
    'run',
    '--warehouse',
    `duckdb:${warehouse}`,
    '--pack',
    'ecommerce',
    '--llm',
    llm,
    '--max-steps',
    '4',
    '--quiet',
  ];

  it('shows one warning of its own for a deprecated Claude model, and none of the SDK notice it printed on every call', async () => {
    const outcome = await assay(run('anthropic:claude-sonnet-4-5'), {
      ANTHROPIC_API_KEY: 'simulated-key',
      ANTHROPIC_BASE_URL: simulator.url,
    });
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stdout).toMatch(/run run-\S+: completed/);
    expect(outcome.stderr.match(/is deprecated by its vendor \(end of life: November 30th, 2026\)/g)).toHaveLength(1);
    expect(outcome.stderr).not.toMatch(/Please migrate to a newer model/);
  }, 120_000);

  it('shows no AWS SDK notice on a Bedrock run', async () => {
    const outcome = await assay(run('bedrock:us.anthropic.claude-sonnet-4-6'), {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'AKIDQUIET',
      AWS_SECRET_ACCESS_KEY: 'simulated-secret',
      ASSAY_BEDROCK_ENDPOINT: simulator.url,
    });
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stdout).toMatch(/run run-\S+: completed/);
    expect(outcome.stderr).not.toMatch(/NodeVersionSupportWarning|AWS SDK/);
  }, 120_000);
});
