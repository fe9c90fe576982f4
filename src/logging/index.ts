/** pino loggers: JSON by default, pretty in a TTY, secrets and large bodies redacted. */
import { pino, stdSerializers, type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

/** Paths pino blanks wherever they appear (one or two levels deep). */
export const REDACT_PATHS = [
  'apiKey',
  '*.apiKey',
  'anthropicApiKey',
  'openaiApiKey',
  '*.anthropicApiKey',
  '*.openaiApiKey',
  'password',
  '*.password',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  // Provider SDK errors echo the whole request; a prompt must never reach a log line.
  'err.requestBodyValues',
  'err.requestBody',
  'err.responseBody',
  'err.request',
  'err.response',
  'err.headers',
  'prompt',
  '*.prompt',
  'messages',
  '*.messages',
];

const MAX_ERROR_MESSAGE = 500;

/** Keeps error logs small: type, code, short message, stack, and the cause's type/message only. */
function errorSerializer(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const base = stdSerializers.err(error) as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {
    type: base.type,
    message: String(base.message ?? '').slice(0, MAX_ERROR_MESSAGE),
    stack: typeof base.stack === 'string' ? base.stack.split('\n').slice(0, 8).join('\n') : undefined,
  };
  const code = (error as { code?: unknown }).code;
  if (code !== undefined) out.code = code;
  const details = (error as { details?: unknown }).details;
  if (details !== undefined) out.details = details;
  if (error.cause instanceof Error) out.cause = { type: error.cause.name, message: error.cause.message.slice(0, MAX_ERROR_MESSAGE) };
  return out;
}

export interface CreateLoggerOptions {
  level?: LoggerOptions['level'];
  format?: 'json' | 'pretty' | 'auto';
  /** Where to write; defaults to stderr so CLI output on stdout stays clean. */
  destination?: NodeJS.WritableStream;
}

export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const format = options.format ?? 'auto';
  const pretty = format === 'pretty' || (format === 'auto' && process.stderr.isTTY === true && !options.destination);
  const base: LoggerOptions = {
    level: options.level ?? 'info',
    base: undefined,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: { err: errorSerializer, error: errorSerializer },
  };
  if (pretty) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { destination: 2, colorize: true, ignore: 'pid,hostname' } } });
  }
  return pino(base, (options.destination as pino.DestinationStream | undefined) ?? pino.destination(2));
}

/** The fields bound on every line of a job's log. */
export interface LogBindings {
  runId?: string;
  jobId?: string;
  queue?: string;
  step?: number;
  area?: string;
  phase?: string;
}

export function childLogger(logger: Logger, bindings: LogBindings): Logger {
  return logger.child(bindings);
}

/** A logger that writes nothing: for tests and library callers that pass none. */
export const silentLogger: Logger = pino({ level: 'silent' });
