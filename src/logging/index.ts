/** pino loggers: one readable line per entry by default, JSON when asked, secrets and large bodies redacted. */
import { createRequire } from 'node:module';
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

export type LogFormat = 'json' | 'text' | 'pretty' | 'auto';

export interface CreateLoggerOptions {
  level?: LoggerOptions['level'];
  /** `json`: one pino JSON object per line. `text` (`pretty` and `auto` too): one readable line per entry. @defaultValue auto */
  format?: LogFormat;
  /** Where to write; defaults to stderr so CLI output on stdout stays clean. */
  destination?: NodeJS.WritableStream;
  /** Write to this file instead (JSON lines, appended; the directory is created). */
  file?: string;
}

const require = createRequire(import.meta.url);

/** `key=value` for the bound fields a reader needs to tell lines apart; objects and arrays stay out. */
function boundFields(entry: Record<string, unknown>): string {
  const skip = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'err', 'error']);
  const parts = Object.entries(entry)
    .filter(([key, value]) => !skip.has(key) && value !== undefined && (typeof value !== 'object' || value === null))
    .map(([key, value]) => `${key}=${String(value)}`);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

/** One line per entry: the level, the message, an error's message (never its stack) and the scalar fields. */
function textMessage(entry: Record<string, unknown>, messageKey: string): string {
  const error = (entry.err ?? entry.error) as { message?: unknown } | string | undefined;
  const errorText = typeof error === 'string' ? error : typeof error?.message === 'string' ? error.message : '';
  return `${String(entry[messageKey] ?? '')}${errorText ? `: ${errorText}` : ''}${boundFields(entry)}`;
}

/**
 * pino-pretty, or undefined where it is not installed: it is a development dependency, and a production
 * install (the image, which logs JSON) writes JSON lines instead of text.
 */
function loadPretty(): typeof import('pino-pretty') | undefined {
  try {
    return require('pino-pretty') as typeof import('pino-pretty');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  }
}

function textStream(destination: NodeJS.WritableStream | undefined): pino.DestinationStream {
  // loaded only for text logs: JSON-only processes (the fleet in containers) never pay for it
  const pretty = loadPretty();
  if (pretty === undefined) return (destination as pino.DestinationStream | undefined) ?? pino.destination(2);
  const messageFormat: import('pino-pretty').MessageFormatFunc = (entry, messageKey) => textMessage(entry, messageKey);
  const colorize = destination === undefined && process.stderr.isTTY === true && !process.env.NO_COLOR;
  return pretty({
    colorize,
    sync: true,
    destination: destination ?? 2,
    hideObject: true,
    ignore: 'pid,hostname,time',
    messageFormat,
  }) as unknown as pino.DestinationStream;
}

export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const format = options.format ?? 'auto';
  const base: LoggerOptions = {
    level: options.level ?? 'info',
    base: undefined,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: { err: errorSerializer, error: errorSerializer },
  };
  if (options.file !== undefined) return pino(base, pino.destination({ dest: options.file, sync: true, mkdir: true, append: true }));
  if (format === 'json') return pino(base, (options.destination as pino.DestinationStream | undefined) ?? pino.destination(2));
  return pino(base, textStream(options.destination));
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
