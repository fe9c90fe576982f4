import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../../src/api/auth/keys.js';
import { principalOfReportLink, signReportLink } from '../../../src/api/auth/report-links.js';
import { finalizeRun } from '../../../src/discovery/phases/finalize.js';
import { createApiHarness, type ApiHarness } from './api-harness.js';

describe('when a report is opened in a browser', () => {
  let api: ApiHarness;
  let runId: string;
  beforeEach(async () => {
    api = await createApiHarness();
    runId = (await api.call('POST', '/api/v1/projects/shop/discover', { max_steps: 2 })).json.run_id;
    await finalizeRun(api.runtime, runId);
  });
  afterEach(async () => {
    await api.close();
  });

  /** The path and query of a link, as a browser would request it: no Authorization header. */
  async function open(path: string, headers: Record<string, string> = {}) {
    return api.call('GET', path, undefined, { key: null, headers });
  }

  it('gives a read key a link that opens the report with no key, and says when it expires', async () => {
    const reader = await api.createKey('read');
    const { status, json } = await api.call('GET', `/api/v1/runs/${runId}/report-link`, undefined, { key: reader });
    expect(status).toBe(200);
    expect(json.url).toBe(`http://localhost${json.path}`);
    expect(json.path).toMatch(new RegExp(`^/api/v1/runs/${runId}/report\\?key=[a-z0-9]{12}&expires=\\d+&signature=[0-9a-f]{64}$`));
    expect(Date.parse(json.expires_at)).toBeGreaterThan(api.runtime.now().getTime());
    expect(json.url).not.toContain(reader);
    const report = await open(json.path, { Accept: 'text/html' });
    expect(report.status).toBe(200);
    expect(report.headers.get('content-type')).toMatch(/^text\/html/);
    expect(report.text).toContain(runId);
  });

  it('refuses a link whose signature, run or key was changed, and a link of a revoked key', async () => {
    const { json } = await api.call('GET', `/api/v1/runs/${runId}/report-link`);
    const forged = json.path.replace(/signature=([0-9a-f])/, (_match: string, first: string) => `signature=${first === 'a' ? 'b' : 'a'}`);
    expect((await open(forged)).status).toBe(401);
    expect((await open(json.path.replace(runId, 'run-20261123-090000-aaaaaa'))).status).toBe(401);
    const keyId = /key=([a-z0-9]{12})/.exec(json.path)![1]!;
    await revokeApiKey(api.runtime.store, keyId, new Date());
    const revoked = await open(json.path);
    expect(revoked.status).toBe(401);
    expect(revoked.json.error.message).toMatch(/expired, revoked or not valid: ask for a new one/);
  });

  it('does not let a key bound to another project sign a link to this run', async () => {
    expect((await api.call('POST', '/api/v1/projects', { id: 'elsewhere', name: 'Elsewhere', domain: 'gaming' })).status).toBe(201);
    const bound = await api.createKey('read', 'elsewhere');
    expect((await api.call('GET', `/api/v1/runs/${runId}/report-link`, undefined, { key: bound })).status).toBe(404);
  });

  it('shows a browser without a link a page saying how to get one, and a JSON client a JSON 401', async () => {
    const page = await open(`/api/v1/runs/${runId}/report`, { Accept: 'text/html,application/xhtml+xml' });
    expect(page.status).toBe(401);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain(`/api/v1/runs/${runId}/report-link`);
    const json = await open(`/api/v1/runs/${runId}/report`);
    expect(json.status).toBe(401);
    expect(json.json.error.code).toBe('unauthorized');
  });

  it('refuses an expiry outside 60 s to 7 days', async () => {
    expect((await api.call('GET', `/api/v1/runs/${runId}/report-link?expires_in=5`)).status).toBe(400);
    expect((await api.call('GET', `/api/v1/runs/${runId}/report-link?expires_in=9999999`)).status).toBe(400);
  });
});

describe('when a report link has expired', () => {
  it('speaks for nobody', async () => {
    const record = {
      id: 'abcdefghijkl',
      name: 'k',
      scope: 'read' as const,
      secret_hash: 'f'.repeat(64),
      created_at: '2026-11-01T00:00:00Z',
    };
    const store = { getApiKey: async () => record };
    const link = signReportLink(record.secret_hash, record.id, 'run-1', 1_800_000_000);
    const query = Object.fromEntries(new URL(`http://x${link.path}`).searchParams);
    expect(await principalOfReportLink(store, 'run-1', query, new Date(1_799_999_000_000))).toMatchObject({
      keyId: record.id,
      scope: 'read',
    });
    expect(await principalOfReportLink(store, 'run-1', query, new Date(1_800_000_000_000))).toBeNull();
  });
});

describe('when a client lists the packs', () => {
  it('answers a read key with every shipped pack, its areas and categories in analysis order, hidden packs left out', async () => {
    const api = await createApiHarness();
    try {
      const { status, json } = await api.call('GET', '/api/v1/packs', undefined, { key: await api.createKey('read') });
      expect(status).toBe(200);
      const slugs = json.packs.map((pack: { slug: string }) => pack.slug);
      expect(slugs).toEqual(expect.arrayContaining(['ecommerce', 'gaming', 'social', 'general']));
      expect(slugs).not.toContain('system-test');
      const ecommerce = json.packs.find((pack: { slug: string }) => pack.slug === 'ecommerce');
      expect(ecommerce.areas.length).toBeGreaterThan(2);
      expect(ecommerce.areas.map((area: { priority: number }) => area.priority)).toEqual(
        [...ecommerce.areas.map((area: { priority: number }) => area.priority)].sort((a: number, b: number) => b - a),
      );
      expect(JSON.stringify(json)).not.toMatch(/\{\{/);
      expect((await api.call('GET', '/api/v1/packs', undefined, { key: null })).status).toBe(401);
    } finally {
      await api.close();
    }
  });
});
