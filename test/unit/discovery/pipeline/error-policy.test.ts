/**
 * The error policy's table in docs/architecture.md ("One error policy") is this test's table: every row
 * names errors (LLM kinds, error codes) and says whether the call retries them and what the stage does.
 * Each named error is built as the code builds it (an LLM error through the providers' `createLlmError`)
 * and classified; a row the code disagrees with fails, and so does an LLM error kind the table forgets.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { IN_CALL_RETRY_KINDS } from '../../../../src/discovery/llm-gateway.js';
import { classifyStageError, type StageError } from '../../../../src/discovery/pipeline/error-policy.js';
import { AssayError, CancelledError, ERROR_CODES, type ErrorCode, type LlmErrorKind } from '../../../../src/errors/index.js';
import { createLlmError } from '../../../../src/llm/providers/errors.js';

const LLM_KINDS: readonly LlmErrorKind[] = [
  'context_overflow',
  'rate_limit',
  'auth',
  'invalid_request',
  'timeout',
  'transient',
  'aborted',
  'malformed_output',
];

interface PolicyRow {
  errors: string;
  inCall: string;
  stage: string;
}

/** The rows of the first table under "## One error policy". */
function policyRows(): PolicyRow[] {
  const doc = readFileSync(fileURLToPath(new URL('../../../../docs/architecture.md', import.meta.url)), 'utf8');
  const section = doc.slice(doc.indexOf('## One error policy'));
  const lines = section.split('\n');
  const start = lines.findIndex((line) => line.startsWith('| error | in-call retry | stage retry |'));
  const rows: PolicyRow[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const [errors = '', inCall = '', stage = ''] = line
      .split('|')
      .slice(1)
      .map((cell) => cell.trim());
    rows.push({ errors, inCall, stage });
  }
  return rows;
}

/** The errors a row names: LLM kinds when the cell says LLM, else error codes; backticked, as the doc writes them. */
function errorsOf(row: PolicyRow): Array<{ label: string; error: unknown; llmKind?: LlmErrorKind }> {
  const named = [...row.errors.matchAll(/`([a-z_]+)`/g)].map((match) => match[1] as string);
  const llmFrom = row.errors.indexOf('LLM');
  return named.map((name) => {
    const isLlm = llmFrom >= 0 && row.errors.indexOf(`\`${name}\``) > llmFrom && (LLM_KINDS as readonly string[]).includes(name);
    if (isLlm) {
      const kind = name as LlmErrorKind;
      return {
        label: `LLM ${kind}`,
        llmKind: kind,
        error: createLlmError({ kind, provider: 'anthropic' }, `${kind} from the provider`, undefined),
      };
    }
    if (name === 'cancelled') return { label: 'cancelled', error: new CancelledError('the run was cancelled') };
    expect(ERROR_CODES, `the table names "${name}", which is no error code`).toContain(name);
    return { label: name, error: new AssayError(name as ErrorCode, `${name} failure`) };
  });
}

/** What the "stage retry" cell means as a classification. */
function expectedKind(row: PolicyRow): StageError['kind'] {
  if (/waited out/.test(row.stage)) return 'rate_limited';
  if (row.stage === 'yes') return 'retryable';
  return /cancelled/.test(row.errors) ? 'cancelled' : 'final';
}

const rows = policyRows();

describe('the error policy, row by row of the documented table', () => {
  it('finds the table, with a row for every kind of outcome', () => {
    expect(rows.length).toBeGreaterThanOrEqual(5);
    expect(new Set(rows.map(expectedKind))).toEqual(new Set(['retryable', 'rate_limited', 'final', 'cancelled']));
  });

  for (const row of rows) {
    const kind = expectedKind(row);
    for (const { label, error, llmKind } of errorsOf(row)) {
      it(`${label}: stage ${kind}${llmKind ? `, in-call retry ${row.inCall}` : ''}`, () => {
        expect(classifyStageError(error).kind).toBe(kind);
        if (llmKind && (row.inCall === 'yes' || row.inCall === 'no')) expect(IN_CALL_RETRY_KINDS.has(llmKind)).toBe(row.inCall === 'yes');
      });
    }
  }

  it('names every LLM error kind in some row', () => {
    const named = new Set(rows.flatMap((row) => errorsOf(row).flatMap((entry) => (entry.llmKind ? [entry.llmKind] : []))));
    expect([...named].sort()).toEqual([...LLM_KINDS].sort());
  });

  it('retries what the table calls anything else: an error of no listed kind, and a plain Error', () => {
    expect(classifyStageError(new AssayError('warehouse', 'connection reset')).kind).toBe('retryable');
    expect(classifyStageError(new Error('a bug')).kind).toBe('retryable');
  });

  it('waits the provider’s retry-after on a rate limit, else 30 s', () => {
    const told = createLlmError({ kind: 'rate_limit', provider: 'openai', retryAfterMs: 7_000 }, '429', undefined);
    const untold = createLlmError({ kind: 'rate_limit', provider: 'openai' }, '429', undefined);
    expect(classifyStageError(told)).toMatchObject({ kind: 'rate_limited', retryAfterMs: 7_000 });
    expect(classifyStageError(untold)).toMatchObject({ kind: 'rate_limited', retryAfterMs: 30_000 });
  });
});
