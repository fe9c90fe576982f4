/**
 * The API's one error path: every thrown error becomes `{ error: { code, message, issues?, details? } }`
 * with the status `httpStatusFor` gives its code. Unexpected errors are logged and answered with a
 * generic message, so internals (paths, SQL, provider bodies) never reach a client.
 */
import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { AssayError, RateLimitedError, UnauthorizedError, ValidationError, httpStatusFor } from '../errors/index.js';
import type { Logger } from '../logging/index.js';
import type { ErrorBody } from './schemas.js';

/** Detail keys safe to echo to a client (ids and states, never config or provider payloads). */
const PUBLIC_DETAIL_KEYS = new Set(['runId', 'projectId', 'status', 'state', 'pack', 'category', 'areaId', 'retryAfterSeconds']);

/**
 * An absolute file path in a message becomes its last segment: a pack error names its file, but a
 * client must not learn where the server keeps it. A path right after `//` (a URL's host part) or
 * inside a word is left alone.
 */
export function scrubPaths(message: string): string {
  return message.replace(/(?<![\w/.~-])(?:\/[^\s/"'`),;:]+){2,}\/?/g, (found) => {
    // the API's own routes are not server paths
    if (/^\/(api|admin)\//.test(found)) return found;
    const segments = found.split('/').filter((segment) => segment.length > 0);
    return `…/${segments.at(-1) ?? ''}`;
  });
}

function publicDetails(details: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!details) return undefined;
  const kept = Object.entries(details).filter(([key]) => PUBLIC_DETAIL_KEYS.has(key));
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

export function errorResponseOf(error: unknown): { status: ContentfulStatusCode; body: ErrorBody } {
  if (!(error instanceof AssayError) || error.code === 'internal') {
    return { status: 500, body: { error: { code: 'internal', message: 'internal error: see the server log' } } };
  }
  const details = publicDetails(error.details);
  return {
    status: httpStatusFor(error) as ContentfulStatusCode,
    body: {
      error: {
        code: error.code,
        message: scrubPaths(error.message),
        ...(error instanceof ValidationError
          ? { issues: error.issues.map((issue) => ({ ...issue, message: scrubPaths(issue.message) })) }
          : {}),
        ...(details ? { details } : {}),
      },
    },
  };
}

/** A 401 a browser should see as a page (the report route, opened without a link). */
export class HtmlUnauthorizedError extends UnauthorizedError {
  constructor(
    message: string,
    readonly page: string,
  ) {
    super(message);
  }
}

export function createErrorHandler(logger: Logger): ErrorHandler {
  return (error: Error, c: Context) => {
    if (error instanceof HtmlUnauthorizedError) {
      c.header('WWW-Authenticate', 'Bearer realm="assay"');
      return c.html(error.page, 401);
    }
    const { status, body } = errorResponseOf(error);
    if (status >= 500) logger.error({ err: error, method: c.req.method, path: c.req.path }, 'request failed');
    else logger.debug({ code: body.error.code, method: c.req.method, path: c.req.path }, body.error.message);
    if (error instanceof RateLimitedError) c.header('Retry-After', String(error.retryAfterSeconds));
    if (status === 401) c.header('WWW-Authenticate', 'Bearer realm="assay"');
    return c.json(body, status);
  };
}

export const notFoundHandler: NotFoundHandler = (c) =>
  c.json({ error: { code: 'not_found', message: `no route for ${c.req.method} ${c.req.path}` } } satisfies ErrorBody, 404);
