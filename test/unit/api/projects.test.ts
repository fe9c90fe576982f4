import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canTransition, PROJECT_STATE_TRANSITIONS } from '../../../src/api/project-state.js';
import { projectStateSchema } from '../../../src/domain/index.js';
import { createApiHarness, issuePaths, type ApiHarness } from './api-harness.js';

const SERVED_WITH_PASSWORD = 'postgres://assay:s3cret-pass@db.internal:5432/shop';

describe('projects API', () => {
  let api: ApiHarness;
  beforeEach(async () => {
    api = await createApiHarness({ config: (config) => ({ ...config, warehouse: SERVED_WITH_PASSWORD }) });
  });
  afterEach(async () => api.close());

  describe('when a project is created with a valid body', () => {
    it('answers 201 with the stored project, a Location header and state ready', async () => {
      const created = await api.call('POST', '/api/v1/projects', { name: 'Shop Analytics', domain: 'ecommerce' });
      expect(created.status).toBe(201);
      expect(created.json.id).toMatch(/^shop-analytics-[0-9a-f]{6}$/);
      expect(created.json.state).toBe('ready');
      expect(created.headers.get('location')).toBe(`/api/v1/projects/${created.json.id}`);
      const fetched = await api.call('GET', `/api/v1/projects/${created.json.id}`);
      expect(fetched.json).toEqual(created.json);
      const listed = await api.call('GET', '/api/v1/projects');
      expect(listed.json.projects.map((project: { id: string }) => project.id)).toContain(created.json.id);
    });

    it('never stores or echoes the warehouse password, whichever one the body carries', async () => {
      const created = await api.call('POST', '/api/v1/projects', {
        id: 'pw',
        name: 'pw',
        domain: 'ecommerce',
        warehouse: { url: 'postgres://assay:another@db.internal:5432/shop' },
      });
      expect(created.status).toBe(201);
      expect(created.json.warehouse.url).toBe('postgres://assay:***@db.internal:5432/shop');
      expect(created.text).not.toMatch(/s3cret|another/);
      const stored = await api.runtime.store.getProject('pw');
      expect(JSON.stringify(stored)).not.toMatch(/s3cret|another/);
    });

    it('starts a pack-generation project in pack_generation_pending', async () => {
      const created = await api.call('POST', '/api/v1/projects', {
        id: 'wizard',
        name: 'Wizard',
        domain: 'ecommerce',
        generate_pack: { enabled: true },
      });
      expect(created.json.state).toBe('pack_generation_pending');
    });
  });

  describe('when the body is invalid', () => {
    it('answers 400 with the path of every offending field', async () => {
      const response = await api.call('POST', '/api/v1/projects', { domain: 'ecommerce', warehouse: { url: 42 }, colour: 'red' });
      expect(response.status).toBe(400);
      expect(response.json.error.code).toBe('validation');
      expect(issuePaths(response.json)).toEqual(['colour', 'name', 'warehouse.url']);
    });

    it('answers 400 for a body that is not JSON', async () => {
      const response = await api.call('POST', '/api/v1/projects', '{"name": ');
      expect(response.status).toBe(400);
      expect(response.json.error.message).toMatch(/not valid JSON/);
    });

    it('names the domain when the pack does not exist, and the category when the pack has no such category', async () => {
      const noPack = await api.call('POST', '/api/v1/projects', { name: 'x', domain: 'astrology' });
      expect(noPack.status).toBe(400);
      expect(issuePaths(noPack.json)).toEqual(['domain']);
      const noCategory = await api.call('POST', '/api/v1/projects', { name: 'x', domain: 'ecommerce', category: 'underwater-basketry' });
      expect(noCategory.status).toBe(400);
      expect(issuePaths(noCategory.json)).toEqual(['category']);
    });

    it('refuses a warehouse other than the served one, without echoing credentials', async () => {
      const response = await api.call('POST', '/api/v1/projects', {
        name: 'x',
        domain: 'ecommerce',
        warehouse: { url: 'postgres://assay:s3cret-pass@other-host/shop' },
      });
      expect(response.status).toBe(400);
      expect(issuePaths(response.json)).toEqual(['warehouse.url']);
      expect(response.text).not.toContain('s3cret');
    });

    it('answers 409 for an id that exists', async () => {
      expect((await api.call('POST', '/api/v1/projects', { id: 'twice', name: 'a', domain: 'ecommerce' })).status).toBe(201);
      const again = await api.call('POST', '/api/v1/projects', { id: 'twice', name: 'b', domain: 'ecommerce' });
      expect(again.status).toBe(409);
      expect(again.json.error.code).toBe('conflict');
    });
  });

  it('answers 404 with a JSON error for an unknown project', async () => {
    const response = await api.call('GET', '/api/v1/projects/nope');
    expect(response.status).toBe(404);
    expect(response.json.error).toMatchObject({ code: 'not_found', message: expect.stringContaining('nope') });
  });

  describe('when a project is updated', () => {
    it('walks the pack-generation states to ready, one legal step at a time', async () => {
      await api.call('POST', '/api/v1/projects', { id: 'wiz', name: 'Wizard', domain: 'ecommerce', generate_pack: { enabled: true } });
      for (const state of ['pack_generation', 'pack_generation_done', 'ready']) {
        const response = await api.call('PUT', '/api/v1/projects/wiz', { state });
        expect(response.status, state).toBe(200);
        expect(response.json.state).toBe(state);
      }
    });

    it('refuses an illegal transition with 409 and leaves the project as it was', async () => {
      await api.call('POST', '/api/v1/projects', { id: 'wiz', name: 'Wizard', domain: 'ecommerce', generate_pack: { enabled: true } });
      const skip = await api.call('PUT', '/api/v1/projects/wiz', { state: 'ready', name: 'Renamed' });
      expect(skip.status).toBe(409);
      expect(skip.json.error.message).toMatch(/pack_generation_pending.*ready/);
      const back = await api.call('PUT', '/api/v1/projects/shop', { state: 'pack_generation' });
      expect(back.status).toBe(409);
      const stored = await api.call('GET', '/api/v1/projects/wiz');
      expect(stored.json).toMatchObject({ state: 'pack_generation_pending', name: 'Wizard' });
    });

    it('changes the given fields only, and removes the category when it is null', async () => {
      await api.call('POST', '/api/v1/projects', { id: 'cat', name: 'Cat', domain: 'gaming', category: 'match3', description: 'kept' });
      const renamed = await api.call('PUT', '/api/v1/projects/cat', { name: 'Renamed', category: null });
      expect(renamed.status).toBe(200);
      expect(renamed.json).toMatchObject({ name: 'Renamed', description: 'kept', domain: 'gaming' });
      expect(renamed.json.category).toBeUndefined();
    });

    it('answers 404 for an unknown project and 400 for an unknown state', async () => {
      expect((await api.call('PUT', '/api/v1/projects/nope', { name: 'x' })).status).toBe(404);
      const badState = await api.call('PUT', '/api/v1/projects/shop', { state: 'done' });
      expect(badState.status).toBe(400);
      expect(issuePaths(badState.json)).toEqual(['state']);
    });
  });
});

describe('the project state machine', () => {
  it('allows exactly the seed transitions (and staying put)', () => {
    const allowed: string[] = [];
    for (const from of projectStateSchema.options)
      for (const to of projectStateSchema.options) if (from !== to && canTransition(from, to)) allowed.push(`${from}->${to}`);
    expect(allowed.sort()).toEqual([
      'pack_generation->pack_generation_done',
      'pack_generation_done->ready',
      'pack_generation_pending->pack_generation',
    ]);
    expect(PROJECT_STATE_TRANSITIONS.ready).toEqual([]);
  });
});
