/**
 * One declaration per route: method, path, who may call it, what it reads (query and body as zod
 * schemas), what it answers (each status with its zod schema or media type) and its handler. The
 * router registration (`registerRoutes`), the auth middleware's scope table (`accessTable`) and the
 * OpenAPI document (`openapi/index.ts`) are all derived from the same list, so none of them can
 * name a route the others do not know.
 */
import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import type { ApiKeyScope } from '../domain/index.js';
import { parseWith, readJsonValue } from './request.js';

/**
 * Who may call a route: anyone (`public`), or a key of at least this scope (docs/api.md,
 * "Authentication"); `read_or_link` also admits a signed report link instead of a key, and
 * `public_metrics` is public when the operator turns `api.publicMetrics` on.
 */
export type RouteAccess = 'public' | 'public_metrics' | 'read_or_link' | ApiKeyScope;

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

export interface RouteResponse {
  description: string;
  /** The JSON body, as the zod schema the handler's answer follows (a named component or written in place). */
  json?: z.ZodType;
  /** A body that is not JSON (HTML, Prometheus text, an event stream). */
  media?: { type: string; description?: string };
}

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What the handler is given: the query string and the body, already validated. */
export interface RouteInput<Q, B> {
  query: Parsed<Q>;
  body: Parsed<B>;
}

export interface RouteSpec<Q extends z.ZodType | undefined, B extends z.ZodType | undefined> {
  method: HttpMethod;
  /** OpenAPI template, full path (`/api/v1/projects/{id}`); parameters are path segments, always strings. */
  path: string;
  access: RouteAccess;
  summary: string;
  tag: string;
  /** Query parameters (a zod object of them); parsed before the handler runs, a bad one answers 400 with its name. */
  query?: Q;
  /** The JSON body; parsed before the handler runs (an empty body counts as `{}`), a bad one answers 400 with each field's path. */
  body?: B;
  /**
   * Parts described here but read by someone else: the report link's query (by the auth middleware)
   * and the verify body (by `readClaims`, which names each claim's fields). The handler gets
   * `undefined` for them and reads the request itself.
   */
  readElsewhere?: ReadonlyArray<'query' | 'body'>;
  /** Every status the handler itself answers with (401 and 403 are added from `access`). */
  responses: Record<number, RouteResponse>;
  handler: (c: Context, input: RouteInput<Q, B>) => Response | Promise<Response>;
}

/** A declared route, its input types erased so that routes of any shape sit in one list. */
export interface ApiRoute extends Omit<RouteSpec<z.ZodType | undefined, z.ZodType | undefined>, 'handler'> {
  handler: (c: Context, input: { query: unknown; body: unknown }) => Response | Promise<Response>;
}

/** Declares a route; only a typing aid (the handler's input follows the query and body schemas). */
export function defineRoute<Q extends z.ZodType | undefined = undefined, B extends z.ZodType | undefined = undefined>(
  spec: RouteSpec<Q, B>,
): ApiRoute {
  return spec as unknown as ApiRoute;
}

/** `/runs/{runId}` → `/runs/:runId`, the router's pattern. */
export function routerPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

/** `GET /api/v1/runs/:runId`: how a matched route is named in the access table. */
function routeKey(method: string, pattern: string): string {
  return `${method.toUpperCase()} ${pattern}`;
}

/** Registers every route on `app`, in order; the query and body are validated before each handler runs. */
export function registerRoutes(app: Hono, routes: readonly ApiRoute[]): void {
  for (const route of routes) {
    const elsewhere = new Set(route.readElsewhere ?? []);
    const query = elsewhere.has('query') ? undefined : route.query;
    const body = elsewhere.has('body') ? undefined : route.body;
    app.on(route.method.toUpperCase(), routerPath(route.path), async (c) => {
      const input = {
        query: query ? parseWith(query, c.req.query(), 'query string') : undefined,
        body: body ? parseWith(body, await readJsonValue(c), 'request body') : undefined,
      };
      return route.handler(c, input);
    });
  }
}

export interface AccessTable {
  /** The access a matched route needs; unmatched requests (404s) still need a key, so route names do not leak. */
  accessFor(method: string, routePattern: string | undefined): RouteAccess;
}

/**
 * The scope table of the auth middleware, from the declarations. A route registered without a
 * declaration (none should be) needs `admin`, so a new route is closed until someone decides who may call it.
 */
export function accessTable(routes: readonly ApiRoute[]): AccessTable {
  const byRoute = new Map(routes.map((route) => [routeKey(route.method, routerPath(route.path)), route.access]));
  return {
    accessFor(method, routePattern) {
      if (routePattern === undefined) return 'read';
      return byRoute.get(routeKey(method === 'HEAD' ? 'GET' : method, routePattern)) ?? 'admin';
    },
  };
}
