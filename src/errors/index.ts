/** Typed errors with stable codes, and the one mapping from a code to a CLI exit code and an HTTP status. */

export const ERROR_CODES = [
  'config',
  'validation',
  'unsafe_sql',
  'sql_syntax',
  'warehouse',
  'llm_context_overflow',
  'llm_rate_limit',
  'llm_auth',
  'llm',
  'not_found',
  'conflict',
  'unauthorized',
  'forbidden',
  'rate_limited',
  'too_large',
  'unavailable',
  'cancelled',
  'pack',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Base class: every error Assay throws on purpose carries a stable `code`. */
export class AssayError extends Error {
  readonly code: ErrorCode;
  /** Extra structured facts for logs and API bodies. Never put secrets here. */
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = options?.details;
  }
}

/** A setting is missing or invalid. The message names the variable and what was expected. */
export class ConfigError extends AssayError {
  constructor(message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super('config', message, options);
  }
}

/** One issue in a validated input: where it is (`path`) and what is wrong. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** Input (API body, CLI argument, LLM output, file) did not match its schema. */
export class ValidationError extends AssayError {
  readonly issues: ValidationIssue[];
  constructor(message: string, issues: ValidationIssue[] = [], options?: { cause?: unknown }) {
    super('validation', message, { ...options, details: { issues } });
    this.issues = issues;
  }
}

/** A domain pack failed to load: names the pack, the file and the field. */
export class PackError extends AssayError {
  constructor(message: string, details?: { pack?: string; file?: string; field?: string }) {
    super('pack', message, { details });
  }
}

/** SQL refused by the guard. Nothing was executed. */
export class UnsafeSqlError extends AssayError {
  readonly reason: string;
  constructor(reason: string, details?: Record<string, unknown>) {
    super('unsafe_sql', `refused: ${reason}`, { details });
    this.reason = reason;
  }
}

/** SQL that does not parse: refused before anything ran, like unsafe SQL, but a typo to fix rather than a rule broken. */
export class SqlSyntaxError extends AssayError {
  constructor(reason: string, details?: Record<string, unknown>) {
    super('sql_syntax', `syntax error: ${reason}; nothing was executed`, { details });
  }
}

/** The warehouse rejected or failed a statement (syntax, missing column, timeout, connection). */
export class WarehouseError extends AssayError {
  constructor(message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super('warehouse', message, options);
  }
}

/** Start of every statement-timeout message: how a stored step or recount error is recognised as one. */
export const QUERY_TIMEOUT_MESSAGE = 'query timed out after';

/** A statement hit the `sql.timeoutMs` limit and was stopped (the engine's own limit or Assay's interrupt). */
export class QueryTimeoutError extends WarehouseError {
  readonly timeoutMs: number;
  constructor(timeoutMs: number, options?: { cause?: unknown }) {
    super(
      `${QUERY_TIMEOUT_MESSAGE} ${timeoutMs} ms: narrow the statement (fewer rows, fewer groups), or raise sql.timeoutMs (ASSAY_SQL_TIMEOUT_MS)`,
      { ...options, details: { timeoutMs } },
    );
    this.timeoutMs = timeoutMs;
  }
}

/** True when an error, or the text an error was stored as, is a statement timeout. */
export function isQueryTimeout(error: unknown): boolean {
  if (error instanceof QueryTimeoutError) return true;
  const text = typeof error === 'string' ? error : undefined;
  return text !== undefined && text.includes(QUERY_TIMEOUT_MESSAGE);
}

export class NotFoundError extends AssayError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('not_found', message, { details });
  }
}

export class ConflictError extends AssayError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('conflict', message, { details });
  }
}

/** No credentials, or credentials nobody issued (HTTP 401). */
export class UnauthorizedError extends AssayError {
  constructor(message: string) {
    super('unauthorized', message);
  }
}

/** Valid credentials whose scope does not cover the request (HTTP 403). */
export class ForbiddenError extends AssayError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('forbidden', message, { details });
  }
}

/** A caller over one of its limits; `retryAfterSeconds` says when to come back (HTTP 429 with `retry-after`). */
export class RateLimitedError extends AssayError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('rate_limited', message, { details: { retryAfterSeconds } });
  }
}

/** A request body over the size limit (HTTP 413). */
export class TooLargeError extends AssayError {
  constructor(message: string) {
    super('too_large', message);
  }
}

/** A dependency the request needs (the job queue, the store) is unreachable right now; retry later (HTTP 503). */
export class UnavailableError extends AssayError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unavailable', message, options);
  }
}

/** The run or job was cancelled (API cancel, abort signal, shutdown). */
export class CancelledError extends AssayError {
  constructor(message = 'cancelled', options?: { cause?: unknown }) {
    super('cancelled', message, options);
  }
}

/** How an LLM call failed, independent of the provider. */
export type LlmErrorKind =
  | 'context_overflow'
  | 'rate_limit'
  | 'auth'
  | 'invalid_request'
  | 'timeout'
  | 'transient'
  | 'aborted'
  | 'malformed_output';

export interface LlmErrorInfo {
  kind: LlmErrorKind;
  /** HTTP status where the provider answered, else undefined. */
  status?: number | undefined;
  /** Milliseconds the provider asked us to wait (retry-after), when it said. */
  retryAfterMs?: number | undefined;
  isRetryable: boolean;
  provider: string;
  /** For context_overflow: the prompt size and the limit the provider reported, when it did. */
  reportedPromptTokens?: number | undefined;
  reportedMaxTokens?: number | undefined;
}

const LLM_KIND_TO_CODE: Record<LlmErrorKind, ErrorCode> = {
  context_overflow: 'llm_context_overflow',
  rate_limit: 'llm_rate_limit',
  auth: 'llm_auth',
  invalid_request: 'llm',
  timeout: 'llm',
  transient: 'llm',
  aborted: 'cancelled',
  malformed_output: 'llm',
};

/**
 * A normalised LLM failure. The native SDK error is kept as `cause`; the message stays short
 * (provider errors can echo the whole prompt, which must never reach logs or job records).
 */
export class LlmError extends AssayError {
  readonly info: LlmErrorInfo;
  constructor(message: string, info: LlmErrorInfo, options?: { cause?: unknown }) {
    super(LLM_KIND_TO_CODE[info.kind], message.length > 500 ? `${message.slice(0, 500)}…` : message, {
      cause: options?.cause,
      details: { ...info },
    });
    this.info = info;
  }
  get kind(): LlmErrorKind {
    return this.info.kind;
  }
}

/** Convenience subclasses so callers can `instanceof` the common cases. */
export class LlmContextOverflowError extends LlmError {
  constructor(message: string, info: Omit<LlmErrorInfo, 'kind' | 'isRetryable'>, options?: { cause?: unknown }) {
    super(message, { ...info, kind: 'context_overflow', isRetryable: false }, options);
  }
}
export class LlmRateLimitError extends LlmError {
  constructor(message: string, info: Omit<LlmErrorInfo, 'kind' | 'isRetryable'>, options?: { cause?: unknown }) {
    super(message, { ...info, kind: 'rate_limit', isRetryable: true }, options);
  }
}
export class LlmAuthError extends LlmError {
  constructor(message: string, info: Omit<LlmErrorInfo, 'kind' | 'isRetryable'>, options?: { cause?: unknown }) {
    super(message, { ...info, kind: 'auth', isRetryable: false }, options);
  }
}

interface ErrorMapping {
  exitCode: number;
  httpStatus: number;
}

/** The single table from error code to process exit code and HTTP status. */
export const ERROR_MAPPING: Record<ErrorCode, ErrorMapping> = {
  config: { exitCode: 78, httpStatus: 500 }, // 78 = EX_CONFIG
  validation: { exitCode: 2, httpStatus: 400 },
  pack: { exitCode: 78, httpStatus: 422 },
  unsafe_sql: { exitCode: 3, httpStatus: 422 },
  sql_syntax: { exitCode: 2, httpStatus: 422 },
  warehouse: { exitCode: 4, httpStatus: 502 },
  llm_context_overflow: { exitCode: 5, httpStatus: 502 },
  llm_rate_limit: { exitCode: 5, httpStatus: 429 },
  llm_auth: { exitCode: 5, httpStatus: 502 },
  llm: { exitCode: 5, httpStatus: 502 },
  not_found: { exitCode: 6, httpStatus: 404 },
  conflict: { exitCode: 7, httpStatus: 409 },
  unauthorized: { exitCode: 77, httpStatus: 401 }, // 77 = EX_NOPERM
  forbidden: { exitCode: 77, httpStatus: 403 },
  rate_limited: { exitCode: 75, httpStatus: 429 }, // 75 = EX_TEMPFAIL
  too_large: { exitCode: 2, httpStatus: 413 },
  unavailable: { exitCode: 69, httpStatus: 503 }, // 69 = EX_UNAVAILABLE
  cancelled: { exitCode: 130, httpStatus: 409 },
  internal: { exitCode: 1, httpStatus: 500 },
};

export function errorCodeOf(error: unknown): ErrorCode {
  return error instanceof AssayError ? error.code : 'internal';
}

export function exitCodeFor(error: unknown): number {
  return ERROR_MAPPING[errorCodeOf(error)].exitCode;
}

export function httpStatusFor(error: unknown): number {
  return ERROR_MAPPING[errorCodeOf(error)].httpStatus;
}

/** A short, secret-free one-line description of any thrown value. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
