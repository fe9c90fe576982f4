/**
 * Authentication and scopes for every route. The required access of a route comes from its one
 * declaration (src/api/routing.ts, `accessTable`): a route registered without one needs `admin`, so
 * a new route is closed until someone decides who may call it. The queue dashboard is guarded separately
 * (board-session.ts) because browsers cannot send bearer headers when following a link.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { matchedRoutes } from 'hono/route';
import type { ApiKeyScope } from '../../domain/index.js';
import { ForbiddenError, UnauthorizedError } from '../../errors/index.js';
import type { RunStore } from '../../store/port.js';
import type { AccessTable } from '../routing.js';
import { authenticateKey, type Principal, scopeAllows } from './keys.js';
import { principalOfReportLink } from './report-links.js';
import { HtmlUnauthorizedError } from '../errors.js';
import { authenticateThrough, type LoginGate } from './login-throttle.js';

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

const REPORT_PATH = /^\/api\/v1\/runs\/([^/]+)\/report$/;

function signInPage(origin: string, runId: string): string {
  const escaped = runId.replace(/[^A-Za-z0-9_-]/g, '');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Assay report: a link is needed</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;line-height:1.5}code{background:#f1f5f9;padding:.1rem .3rem}</style>
</head><body>
<h1>This report needs a signed link</h1>
<p>A browser cannot send an API key, so reports open from a link that carries its own signature and expires.</p>
<p>Get one with any key that may read the run, then open the <code>url</code> it returns:</p>
<pre><code>curl -H "Authorization: Bearer $ASSAY_KEY" ${origin.replace(/[<>&"]/g, '')}/api/v1/runs/${escaped}/report-link</code></pre>
</body></html>`;
}

/**
 * A request for a report without a bearer key: the principal of its signed link, or — for a browser
 * with no link at all — a page saying how to get one instead of a JSON 401.
 */
async function reportLinkPrincipal(c: Context, options: AuthMiddlewareOptions): Promise<Principal | null> {
  const runId = decodeURIComponent(REPORT_PATH.exec(c.req.path)?.[1] ?? '');
  const query = { key: c.req.query('key'), expires: c.req.query('expires'), signature: c.req.query('signature') };
  if (query.signature === undefined) {
    if ((c.req.header('accept') ?? '').includes('text/html'))
      throw new HtmlUnauthorizedError(
        'this report needs a signed link (GET /api/v1/runs/{runId}/report-link) or an API key',
        signInPage(new URL(c.req.url).origin, runId),
      );
    return null;
  }
  const principal = await principalOfReportLink(options.store, runId, query, (options.now ?? (() => new Date()))());
  if (!principal)
    throw new UnauthorizedError(
      `this report link is expired, revoked or not valid: ask for a new one (GET /api/v1/runs/${runId}/report-link)`,
    );
  return principal;
}

export interface AuthMiddlewareOptions {
  /** Who may call each declared route. */
  routes: AccessTable;
  store: Pick<RunStore, 'getApiKey'>;
  /** The clock report links are checked against. @defaultValue () => new Date() */
  now?: () => Date;
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
    const access = options.routes.accessFor(c.req.method, handler?.path);
    if (access === 'public' || (access === 'public_metrics' && options.publicMetrics)) return next();
    if (access === 'read_or_link' && bearerToken(c) === undefined) {
      const linked = await reportLinkPrincipal(c, options);
      if (linked) {
        setPrincipal(c, linked);
        return next();
      }
    }
    const principal = await authenticateRequest(c, options.store, options.gate);
    const need: ApiKeyScope = access === 'public_metrics' || access === 'read_or_link' ? 'read' : access;
    if (!scopeAllows(principal.scope, need)) {
      throw new ForbiddenError(
        `${c.req.method} ${handler?.path ?? c.req.path} needs a key with scope "${need}" (this key has "${principal.scope}")`,
      );
    }
    setPrincipal(c, principal);
    return next();
  };
}
