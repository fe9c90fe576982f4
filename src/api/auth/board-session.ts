/**
 * The guard of the queue dashboard. It needs an `admin` key that is not bound to a project (the
 * board shows every project's jobs), sent as a bearer header or, for a browser, through a login
 * form that sets a short-lived session cookie. The cookie carries no key: it is
 * `keyId.expiry.mac`, the MAC keyed by the key's stored hash, so any API replica can check it and
 * revoking the key ends its sessions.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { UnauthorizedError } from '../../errors/index.js';
import type { RunStore } from '../../store/port.js';
import { authenticateKey, type Principal, scopeAllows } from './keys.js';
import { authenticateThrough, type LoginGate } from './login-throttle.js';
import { bearerToken, clientAddressOf } from './middleware.js';

export const BOARD_COOKIE = 'assay_board';

export interface BoardGuardOptions {
  store: Pick<RunStore, 'getApiKey'>;
  basePath: string;
  sessionSeconds: number;
  now: () => Date;
  /** Failed sign-ins and bearer attempts are counted and throttled with the API's. */
  gate: LoginGate;
}

function mac(secretHash: string, keyId: string, expires: number): string {
  return createHmac('sha256', secretHash).update(`board-session:${keyId}:${expires}`).digest('hex');
}

export function boardSessionToken(secretHash: string, keyId: string, expires: number): string {
  return `${keyId}.${expires}.${mac(secretHash, keyId, expires)}`;
}

async function sessionPrincipal(options: BoardGuardOptions, token: string | undefined): Promise<boolean> {
  const match = token ? /^([a-z0-9]{12})\.(\d{1,12})\.([0-9a-f]{64})$/.exec(token) : null;
  if (!match) return false;
  const [, keyId, expiresText, given] = match as unknown as [string, string, string, string];
  const expires = Number(expiresText);
  if (expires * 1000 <= options.now().getTime()) return false;
  const record = await options.store.getApiKey(keyId);
  if (!record || record.revoked_at || record.scope !== 'admin' || record.project_id) return false;
  return timingSafeEqual(Buffer.from(mac(record.secret_hash, keyId, expires), 'hex'), Buffer.from(given, 'hex'));
}

function boardAdmin(principal: Principal | null): principal is Principal {
  return principal !== null && scopeAllows(principal.scope, 'admin') && principal.projectId === undefined;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char);

function loginPage(basePath: string, message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Assay queues: sign in</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}input{width:100%;padding:.5rem;margin:.5rem 0;box-sizing:border-box}button{padding:.5rem 1rem}</style>
</head><body>
<h1>Assay queues</h1>
<p>${escapeHtml(message)}</p>
<form method="post" action="${escapeHtml(basePath)}/login">
<label for="key">Admin API key</label>
<input id="key" name="key" type="password" autocomplete="off" required>
<button type="submit">Sign in</button>
</form>
<p><small>Create a key with <code>assay api-key create --name you --scope admin</code>.</small></p>
</body></html>`;
}

function wantsHtml(c: Context): boolean {
  return c.req.method === 'GET' && (c.req.header('accept') ?? '').includes('text/html');
}

export function boardGuard(options: BoardGuardOptions): MiddlewareHandler {
  const { basePath } = options;
  return async (c, next) => {
    const path = c.req.path;
    if (path !== basePath && !path.startsWith(`${basePath}/`)) return next();
    const secure = new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https';

    if (path === `${basePath}/login` && c.req.method === 'POST') {
      const form = await c.req.parseBody();
      const key = typeof form.key === 'string' ? form.key.trim() : '';
      const principal = key
        ? await authenticateThrough(options.gate, clientAddressOf(c), key, (candidate) => authenticateKey(options.store, candidate))
        : null;
      if (!boardAdmin(principal)) {
        return c.html(loginPage(basePath, 'That key is unknown, revoked, or not an admin key for the whole server.'), 401);
      }
      const record = await options.store.getApiKey(principal.keyId);
      if (!record) return c.html(loginPage(basePath, 'That key was revoked.'), 401);
      const expires = Math.floor(options.now().getTime() / 1000) + options.sessionSeconds;
      setCookie(c, BOARD_COOKIE, boardSessionToken(record.secret_hash, record.id, expires), {
        path: basePath,
        httpOnly: true,
        sameSite: 'Strict',
        secure,
        maxAge: options.sessionSeconds,
      });
      return c.redirect(basePath, 303);
    }
    if (path === `${basePath}/logout` && c.req.method === 'POST') {
      deleteCookie(c, BOARD_COOKIE, { path: basePath, secure });
      return c.redirect(basePath, 303);
    }

    const token = bearerToken(c);
    if (token) {
      const principal = await authenticateThrough(options.gate, clientAddressOf(c), token, (candidate) =>
        authenticateKey(options.store, candidate),
      );
      if (boardAdmin(principal)) return next();
      throw new UnauthorizedError('the queue dashboard needs an admin API key that is not bound to a project');
    }
    if (await sessionPrincipal(options, getCookie(c, BOARD_COOKIE))) return next();
    if (wantsHtml(c)) return c.html(loginPage(basePath, 'Sign in with an admin API key to see the queues.'), 401);
    throw new UnauthorizedError('the queue dashboard needs an admin API key (bearer header) or a session from its login form');
  };
}
