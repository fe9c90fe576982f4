/**
 * API keys: `assay_<id>_<secret>`. The id finds the stored record; only a SHA-256 of the secret is
 * stored, and the comparison is constant-time. An unknown id costs the same hash and comparison as
 * a known one, so timing does not tell which ids exist.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { type ApiKeyRecord, type ApiKeyScope, apiKeyRecordSchema } from '../../domain/index.js';
import { NotFoundError, ValidationError } from '../../errors/index.js';
import type { RunStore } from '../../store/port.js';

const KEY_PATTERN = /^assay_([a-z0-9]{12})_([A-Za-z0-9_-]{43})$/;
const SCOPE_RANK: Record<ApiKeyScope, number> = { read: 0, run: 1, admin: 2 };

/** Who is calling: the key's id, what it may do, and the project it is bound to, if any. */
export interface Principal {
  keyId: string;
  name: string;
  scope: ApiKeyScope;
  projectId?: string;
}

export function scopeAllows(have: ApiKeyScope, need: ApiKeyScope): boolean {
  return SCOPE_RANK[have] >= SCOPE_RANK[need];
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

function newKeyId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(12)].map((byte) => alphabet[byte % alphabet.length]).join('');
}

export interface NewApiKey {
  record: ApiKeyRecord;
  /** The whole key, shown once: it is not stored anywhere. */
  key: string;
}

export async function createApiKey(
  store: Pick<RunStore, 'putApiKey' | 'getProject'>,
  input: { name: string; scope: ApiKeyScope; projectId?: string | undefined },
  now: Date,
): Promise<NewApiKey> {
  if (input.projectId !== undefined && !(await store.getProject(input.projectId))) {
    throw new ValidationError(`project ${input.projectId} does not exist: a key can only be bound to an existing project`, [
      { path: 'project_id', message: 'no such project' },
    ]);
  }
  const id = newKeyId();
  const secret = randomBytes(32).toString('base64url');
  const parsed = apiKeyRecordSchema.safeParse({
    id,
    name: input.name,
    scope: input.scope,
    ...(input.projectId === undefined ? {} : { project_id: input.projectId }),
    secret_hash: hashSecret(secret),
    created_at: now.toISOString(),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.join('.') ?? '';
    throw new ValidationError(`invalid API key ${path}: ${issue?.message ?? 'invalid'}`, [{ path, message: issue?.message ?? 'invalid' }]);
  }
  await store.putApiKey(parsed.data);
  return { record: parsed.data, key: `assay_${id}_${secret}` };
}

export async function revokeApiKey(store: Pick<RunStore, 'getApiKey' | 'putApiKey'>, id: string, now: Date): Promise<ApiKeyRecord> {
  const record = await store.getApiKey(id);
  if (!record) throw new NotFoundError(`API key ${id} does not exist`);
  if (record.revoked_at) return record;
  const revoked = { ...record, revoked_at: now.toISOString() };
  await store.putApiKey(revoked);
  return revoked;
}

/** A stand-in hash compared when the id is unknown, so both paths do the same work. */
const DECOY_HASH = hashSecret('assay-decoy-secret');

/** The principal a bearer token belongs to, or null (malformed, unknown, wrong secret or revoked). */
export async function authenticateKey(store: Pick<RunStore, 'getApiKey'>, token: string): Promise<Principal | null> {
  const match = KEY_PATTERN.exec(token);
  if (!match) return null;
  const [, id, secret] = match as unknown as [string, string, string];
  const record = await store.getApiKey(id);
  const expected = Buffer.from(record?.secret_hash ?? DECOY_HASH, 'hex');
  const actual = Buffer.from(hashSecret(secret), 'hex');
  const equal = timingSafeEqual(expected, actual);
  if (!record || !equal || record.revoked_at) return null;
  return { keyId: record.id, name: record.name, scope: record.scope, ...(record.project_id ? { projectId: record.project_id } : {}) };
}

/** A key record as listings show it: never the hash. */
export function publicKeyView(record: ApiKeyRecord): Omit<ApiKeyRecord, 'secret_hash'> {
  const { secret_hash: _hash, ...rest } = record;
  return rest;
}
