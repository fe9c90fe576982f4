/**
 * Report links a browser can open: a browser following a link sends no bearer header, so
 * `GET /api/v1/runs/{runId}/report-link` (any key that may read the run) returns a URL to the report
 * that carries its own authorisation — the key's id, an expiry, and an HMAC of both and the run id,
 * keyed by the key's stored hash. No key travels in the URL; any API replica can check it; revoking
 * the key ends its links, and a key bound to a project can only sign links to that project's runs
 * (the report route checks the run against the signer, as for a bearer key).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RunStore } from '../../store/port.js';
import { type Principal, scopeAllows } from './keys.js';

/** How long a report link works unless the caller asks for less or more (`?expires_in=`). */
export const REPORT_LINK_DEFAULT_SECONDS = 3_600;
/** A link is meant for opening now or sharing today, not for archiving. */
export const REPORT_LINK_MAX_SECONDS = 7 * 86_400;

function signature(secretHash: string, keyId: string, runId: string, expires: number): string {
  return createHmac('sha256', secretHash).update(`report-link:${keyId}:${runId}:${expires}`).digest('hex');
}

export interface SignedReportLink {
  /** Path and query of the report, e.g. `/api/v1/runs/run-…/report?key=…&expires=…&signature=…`. */
  path: string;
  expires: number;
}

export function signReportLink(secretHash: string, keyId: string, runId: string, expires: number): SignedReportLink {
  const query = new URLSearchParams({ key: keyId, expires: String(expires), signature: signature(secretHash, keyId, runId, expires) });
  return { path: `/api/v1/runs/${encodeURIComponent(runId)}/report?${query}`, expires };
}

/** The principal a signed report link speaks for, or null (malformed, expired, forged, or its key revoked). */
export async function principalOfReportLink(
  store: Pick<RunStore, 'getApiKey'>,
  runId: string,
  query: { key?: string | undefined; expires?: string | undefined; signature?: string | undefined },
  now: Date,
): Promise<Principal | null> {
  if (!query.key || !query.expires || !query.signature) return null;
  if (!/^[a-z0-9]{12}$/.test(query.key) || !/^\d{1,12}$/.test(query.expires) || !/^[0-9a-f]{64}$/.test(query.signature)) return null;
  const expires = Number(query.expires);
  if (expires * 1000 <= now.getTime()) return null;
  const record = await store.getApiKey(query.key);
  if (!record || record.revoked_at || !scopeAllows(record.scope, 'read')) return null;
  const expected = Buffer.from(signature(record.secret_hash, record.id, runId, expires), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(query.signature, 'hex'))) return null;
  return { keyId: record.id, name: record.name, scope: 'read', ...(record.project_id ? { projectId: record.project_id } : {}) };
}
