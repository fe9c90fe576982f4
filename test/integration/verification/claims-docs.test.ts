/**
 * The claim examples of the documentation, run as written on a freshly generated demo warehouse: each
 * claim of docs/claims.md marked `<!-- example: claim WAREHOUSE VERDICT -->` goes through `assay verify`
 * and gets that verdict and its exit code; the request of docs/api.md goes through the API and its answer
 * matches the documented one (numbers to the digits shown, text ending in "…" as a prefix).
 */
import { readFileSync, rmSync } from 'node:fs';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { VERDICT_EXIT_CODES } from '../../../src/cli/commands/verify.js';
import { CLAIM_KINDS } from '../../../src/domain/index.js';
import { type DemoKind, generateDemoWarehouse } from '../../../src/demo/index.js';
import type { ClaimVerdictStatus } from '../../../src/discovery/claims/verify-claims.js';
import { runCli } from '../../support/run-cli.js';
import { createApiHarness } from '../../unit/api/api-harness.js';

const DOCS = resolve(fileURLToPath(new URL('../../../docs/', import.meta.url)));

/** Every JSON block preceded by `<!-- example: LABEL -->`, with its label. */
function documentedExamples(markdown: string): Array<{ label: string; json: unknown }> {
  const examples: Array<{ label: string; json: unknown }> = [];
  for (const match of markdown.matchAll(/<!-- example: ([^>]+?) -->\s*```json\n([\s\S]*?)\n```/g)) {
    const label = (match[1] as string).trim();
    try {
      examples.push({ label, json: JSON.parse(match[2] as string) });
    } catch (error) {
      throw new Error(`the example "${label}" is not JSON: ${(error as Error).message}`);
    }
  }
  return examples;
}

/** Whether the actual value says what the documented one shows: numbers to its digits, "…"-ended text as a prefix, documented keys only. */
function documentedDifferences(documented: unknown, actual: unknown, path = ''): string[] {
  if (typeof documented === 'number') {
    if (typeof actual !== 'number') return [`${path}: documented ${documented}, got ${String(actual)}`];
    const text = String(documented);
    if (/e/i.test(text))
      return Math.abs(actual - documented) <= Math.abs(documented) * 1e-6 ? [] : [`${path}: documented ${text}, got ${actual}`];
    const decimals = text.includes('.') ? (text.split('.')[1] as string).length : 0;
    return actual.toFixed(decimals) === documented.toFixed(decimals) ? [] : [`${path}: documented ${text}, got ${actual}`];
  }
  if (typeof documented === 'string') {
    const prefix = documented.endsWith('…') ? documented.slice(0, -1).trimEnd() : undefined;
    const same = typeof actual === 'string' && (prefix === undefined ? actual === documented : actual.startsWith(prefix));
    return same ? [] : [`${path}: documented ${JSON.stringify(documented)}, got ${JSON.stringify(actual)}`];
  }
  if (Array.isArray(documented)) {
    if (!Array.isArray(actual) || actual.length !== documented.length) return [`${path}: documented ${documented.length} items`];
    return documented.flatMap((item, index) => documentedDifferences(item, actual[index], `${path}[${index}]`));
  }
  if (typeof documented === 'object' && documented !== null) {
    if (typeof actual !== 'object' || actual === null) return [`${path}: documented an object`];
    return Object.entries(documented)
      .filter(([key]) => key !== '…')
      .flatMap(([key, value]) => documentedDifferences(value, (actual as Record<string, unknown>)[key], `${path}.${key}`));
  }
  return documented === actual ? [] : [`${path}: documented ${String(documented)}, got ${String(actual)}`];
}

const dir = mkdtempSync(join(tmpdir(), 'assay-claims-docs-'));
const warehouses = new Map<DemoKind, string>();

async function demo(kind: DemoKind): Promise<string> {
  let path = warehouses.get(kind);
  if (!path) {
    path = (await generateDemoWarehouse({ kind, out: join(dir, `${kind}.duckdb`) })).path;
    warehouses.set(kind, path);
  }
  return path;
}

beforeAll(async () => {
  await demo('ecommerce');
}, 120_000);

afterEach(() => {
  process.exitCode = undefined;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs/api.md', () => {
  it('answers the documented verify request with the documented verdict', async () => {
    const examples = documentedExamples(readFileSync(join(DOCS, 'api.md'), 'utf8'));
    const request = examples.find((example) => example.label === 'verify-request');
    const response = examples.find((example) => example.label === 'verify-response');
    expect(request && response).toBeTruthy();
    const api = await createApiHarness({ warehousePath: await demo('ecommerce') });
    try {
      const answer = await api.call('POST', `/api/v1/projects/${api.project.id}/verify`, request?.json);
      expect(answer.status).toBe(200);
      expect(documentedDifferences(response?.json, answer.json)).toEqual([]);
    } finally {
      await api.close();
    }
  });
});

describe('docs/claims.md', () => {
  const examples = documentedExamples(readFileSync(join(DOCS, 'claims.md'), 'utf8')).filter((example) =>
    example.label.startsWith('claim '),
  );

  it('has a tested example of every kind', () => {
    const kinds = new Set(examples.map((example) => (example.json as { kind?: string }).kind ?? 'difference'));
    expect([...kinds].sort()).toEqual([...CLAIM_KINDS].sort());
  });

  it.each(examples.map((example) => [example.label, example.json] as const))('%s', async (label, json) => {
    const [, kind, verdict] = label.split(/\s+/) as [string, DemoKind, ClaimVerdictStatus];
    const file = join(dir, `${label.replace(/\W+/g, '-')}.json`);
    writeFileSync(file, JSON.stringify(json));
    const result = await runCli(['verify', '--warehouse', `duckdb:${await demo(kind)}`, '--claim', file, '--json']);
    expect(JSON.parse(result.stdout).status, result.stdout).toBe(verdict);
    expect(result.code).toBe(VERDICT_EXIT_CODES[verdict]);
  });
});
