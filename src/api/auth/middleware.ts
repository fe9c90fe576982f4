/**
 * Authentication and scopes for every route. The required access of a route comes from the one
 * operation table (src/api/openapi): a route missing from it needs `admin`, so a new route is
 * closed until someone decides who may call it. The queue dashboard is guarded separately
 * (board-session.ts) because browsers cannot send bearer headers when following a link.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { matchedRoutes } from 'hono/route';
import type { ApiKeyScope } from '../../domain/index.js';
import { ForbiddenError, UnauthorizedError } from '../../errors/index.js';
import type { RunStore } from '../../store/port.js';
import { OPERATIONS, type RouteAccess } from '../openapi/index.js';
import { authenticateKey, type Principal, scopeAllows } from './keys.js';
import { authenticateThrough, type LoginGate } from './login-throttle.js';

const ACCESS_BY_ROUTE: ReadonlyMap<string, RouteAccess> = new Map(
  OPERATIONS.map((operation) => [`${operation.method.toUpperCase()} ${operation.path.replace(/\{([^}]+)\}/g, ':$1')}`, operation.access]),
);

/** The access a matched route needs; unmatched requests (404s) still need a key, so route names do not leak. */
export function accessFor(method: string, routePattern: string | undefined): RouteAccess {
  if (routePattern === undefined) return 'read';
  return ACCESS_BY_ROUTE.get(`${method === 'HEAD' ? 'GET' : method} ${routePattern}`) ?? 'admin';
}

/** The bearer token of a request, or undefined. */
export function bearerToken(c: Context): string | undefined {
  const header = c.req.header('authorization');
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

const PRINCIPAL_KEY = 'assay.principal';

/** The caller of an authenticated route (undefined on public routes). */
export function principalOf(c: Context): Principal | undefined {
  return c.get(PRINCIPAL_KEY as never) as Principal | undefined;
}

export function setPrincipal(c: Context, principal: Principal): void {
  c.set(PRINCIPAL_KEY as never, principal as never);
}

/** Throws 403 unless the caller's scope covers `need` (for checks inside a route, e.g. changing a tenant filter). */
export function requireScope(c: Context, need: ApiKeyScope, what: string): void {
  const principal = principalOf(c);
  if (!principal || !scopeAllows(principal.scope, need)) {
    throw new ForbiddenError(`${what} needs a key with scope "${need}"${principal ? ` (this key has "${principal.scope}")` : ''}`);
  }
}

/** The address the request came from: the peer of the TCP connection (in-process requests have none). */
export function clientAddressOf(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export async function authenticateRequest(c: Context, store: Pick<RunStore, 'getApiKey'>, gate: LoginGate): Promise<Principal> {
  const token = bearerToken(c);
  if (!token)
    throw new UnauthorizedError('this route needs an API key: send "Authorization: Bearer <key>" (create one with `assay api-key create`)');
  const principal = await authenticateThrough(gate, clientAddressOf(c), token, (candidate) => authenticateKey(store, candidate));
  if (!principal) throw new UnauthorizedError('the API key is unknown or revoked');
  return principal;
}

export interface AuthMiddlewareOptions {
  store: Pick<RunStore, 'getApiKey'>;
  /** Serve /metrics without a key. */
  publicMetrics: boolean;
  /** Paths handled by their own guard (the queue dashboard). */
  skipPrefix?: string;
  /** Failed attempts are counted and throttled through it. */
  gate: LoginGate;
}

export function authMiddleware(options: AuthMiddlewareOptions): MiddlewareHandler {
  return async (c, next) => {
    if (options.skipPrefix && (c.req.path === options.skipPrefix || c.req.path.startsWith(`${options.skipPrefix}/`))) return next();
    const handler = matchedRoutes(c)
      .filter((route) => route.method !== 'ALL')
      .at(-1);
    const access = accessFor(c.req.method, handler?.path);
    if (access === 'public' || (access === 'public_metrics' && options.publicMetrics)) return next();
    const principal = await authenticateRequest(c, options.store, options.gate);
    const need: ApiKeyScope = access === 'public_metrics' ? 'read' : access;
    if (!scopeAllows(principal.scope, need)) {
      throw new ForbiddenError(
        `${c.req.method} ${handler?.path ?? c.req.path} needs a key with scope "${need}" (this key has "${principal.scope}")`,
      );
    }
    setPrincipal(c, principal);
    return next();
  };
}
