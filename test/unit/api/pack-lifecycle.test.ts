/**
 * The pack-generation lifecycle over the API: pack_generation_pending → pack-generate → a draft in
 * pack_generation_done → pack-accept → ready with a frozen version; discovery refused with 409 until
 * then; every run records the pack version it used, and a later version never changes it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SchemaSource } from '../../../src/discovery/context.js';
import { prepareRun } from '../../../src/discovery/phases/prepare.js';
import { loadRunSetting } from '../../../src/discovery/phases/run-setting.js';
import type { Project } from '../../../src/domain/index.js';
import { WarehouseError } from '../../../src/errors/index.js';
import { createApiHarness, issuePaths, type ApiHarness } from './api-harness.js';

const WIZARD = { id: 'wiz', name: 'Wizard', domain: 'general', generate_pack: { enabled: true } };

describe('the pack-generation lifecycle', () => {
  let api: ApiHarness;
  beforeEach(async () => {
    api = await createApiHarness();
    expect((await api.call('POST', '/api/v1/projects', WIZARD)).status).toBe(201);
  });
  afterEach(async () => api.close());

  const generate = (body?: unknown) => api.call('POST', '/api/v1/projects/wiz/pack-generate', body);
  const accept = (body?: unknown) => api.call('POST', '/api/v1/projects/wiz/pack-accept', body);

  it('generates a draft from the warehouse schema and stores it on the project', async () => {
    const response = await generate({ describe: 'Web sessions and the orders they led to', goal: 'Where do sessions fail to order?' });
    expect(response.status).toBe(200);
    const project = response.json as Project;
    expect(project.state).toBe('pack_generation_done');
    expect(project.pack_generation).toMatchObject({ status: 'done' });
    expect(project.pack_draft).toMatchObject({ slug: 'wiz', generator: 'offline', goal: 'Where do sessions fail to order?' });
    const manifest = JSON.parse(project.pack_draft?.files['pack.json'] ?? '{}') as { areas: Array<{ id: string; keywords: string[] }> };
    expect(manifest.areas.length).toBeGreaterThanOrEqual(3);
    const names = new Set([
      'sessions',
      'orders',
      'session_id',
      'device',
      'reached_checkout',
      'ordered',
      'started_at',
      'order_id',
      'amount',
      'ordered_at',
    ]);
    for (const area of manifest.areas) for (const keyword of area.keywords) expect(names, `${area.id}: ${keyword}`).toContain(keyword);
    expect(project.pack_draft?.files['prompts/base_context.md']).toContain('The team wants to learn: Where do sessions fail to order?');
    expect((await api.call('GET', '/api/v1/projects/wiz')).json).toEqual(response.json);
  });

  it('refuses discovery with 409 naming the state until the draft is accepted', async () => {
    const pending = await api.call('POST', '/api/v1/projects/wiz/discover', {});
    expect(pending.status).toBe(409);
    expect(pending.json.error.message).toMatch(/in state "pack_generation_pending": discovery needs state "ready"/);
    await generate();
    const done = await api.call('POST', '/api/v1/projects/wiz/discover', {});
    expect(done.status).toBe(409);
    expect(done.json.error.message).toMatch(/in state "pack_generation_done"/);
    expect(api.launcher.launched).toEqual([]);
  });

  it('answers 409 naming the state for a generation or accept out of turn', async () => {
    const early = await accept();
    expect(early.status).toBe(409);
    expect(early.json.error.message).toMatch(/in state "pack_generation_pending": accepting a pack needs state "pack_generation_done"/);
    await generate();
    const again = await generate();
    expect(again.status).toBe(409);
    expect(again.json.error.message).toMatch(/in state "pack_generation_done".*pack-accept/);
    const ready = await api.call('POST', `/api/v1/projects/${api.project.id}/pack-generate`, {});
    expect(ready.status).toBe(409);
    expect(ready.json.error.message).toMatch(/in state "ready": pack generation needs state "pack_generation_pending"/);
    const readyAccept = await api.call('POST', `/api/v1/projects/${api.project.id}/pack-accept`, {});
    expect(readyAccept.status).toBe(409);
    expect(readyAccept.json.error.message).toMatch(/in state "ready" and has no draft/);
  });

  it('freezes the draft on accept, and every run records the frozen version it used', async () => {
    const drafted = (await generate()).json as Project;
    const accepted = await accept();
    expect(accepted.status).toBe(200);
    const project = accepted.json as Project;
    expect(project).toMatchObject({ state: 'ready', domain: 'project:wiz@1', pack_version: 1 });
    expect(project.pack_draft).toBeUndefined();
    expect(project.pack_versions).toHaveLength(1);
    expect(project.pack_versions[0]).toMatchObject({ version: 1, slug: 'wiz', source: 'generated' });
    expect(project.pack_versions[0]?.files['prompts/exploration.md']).toBe(drafted.pack_draft?.files['prompts/exploration.md']);

    const started = await api.call('POST', '/api/v1/projects/wiz/discover', { max_steps: 2 });
    expect(started.status).toBe(202);
    const runId = started.json.run_id as string;
    expect((await api.runtime.store.getRun(runId))?.settings.pack).toBe('project:wiz@1');
    await prepareRun(api.runtime, runId);
    const prepared = await api.runtime.store.getRun(runId);
    expect(prepared?.settings).toMatchObject({ pack: 'project:wiz@1', pack_version: '1.0.0', pack_hash: project.pack_versions[0]?.hash });
  });

  it('keeps a run on its version when the pack is edited later', async () => {
    await generate();
    const v1 = (await accept()).json as Project;
    const runId = (await api.call('POST', '/api/v1/projects/wiz/discover', { max_steps: 2 })).json.run_id as string;

    const files = { ...v1.pack_versions[0]!.files };
    const manifest = JSON.parse(files['pack.json']!) as { areas: Array<{ id: string; name: string }> };
    const renamed = manifest.areas[0]!.id;
    const originalName = manifest.areas[0]!.name;
    manifest.areas[0]!.name = 'Edited after the first run';
    files['pack.json'] = JSON.stringify(manifest);
    const edited = await accept({ files });
    expect(edited.status).toBe(200);
    expect(edited.json).toMatchObject({ state: 'ready', domain: 'project:wiz@2', pack_version: 2 });
    expect(edited.json.pack_versions.map((version: { source: string }) => version.source)).toEqual(['generated', 'edited']);

    // the earlier run reads version 1, whatever the project now points at
    const project = (await api.runtime.store.getProject('wiz'))!;
    const run = (await api.runtime.store.getRun(runId))!;
    const setting = await loadRunSetting(api.runtime, run, project);
    expect(setting.pack.version).toBe('1.0.0');
    expect(setting.areas.find((area) => area.id === renamed)?.name).toBe(originalName);
    const current = await loadRunSetting(api.runtime, { ...run, settings: { ...run.settings, pack: project.domain } }, project);
    expect(current.areas.find((area) => area.id === renamed)?.name).toBe('Edited after the first run');

    await api.patchRun(runId, { status: 'completed' });
    const next = await api.call('POST', '/api/v1/projects/wiz/discover', { max_steps: 2 });
    expect((await api.runtime.store.getRun(next.json.run_id))?.settings.pack).toBe('project:wiz@2');
  });

  it('refuses an edited pack the loader refuses, with a 400 naming the file', async () => {
    await generate();
    const draft = ((await api.call('GET', '/api/v1/projects/wiz')).json as Project).pack_draft!;
    const broken = await accept({ files: { ...draft.files, 'prompts/analysis_trends.md': '# no evidence variable' } });
    expect(broken.status).toBe(400);
    expect(broken.json.error.message).toMatch(/prompts\/analysis_trends\.md never uses \{\{QUERY_RESULTS\}\}/);
    const outside = await accept({ files: { '../../etc/passwd': 'x' } });
    expect(outside.status).toBe(400);
    expect(issuePaths(outside.json)).toEqual(['files.../../etc/passwd']);
    expect(((await api.call('GET', '/api/v1/projects/wiz')).json as Project).state).toBe('pack_generation_done');
  });

  it('accepts through PUT state "ready" too (the seed), freezing the draft', async () => {
    await generate();
    const response = await api.call('PUT', '/api/v1/projects/wiz', { state: 'ready' });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ state: 'ready', domain: 'project:wiz@1', pack_version: 1 });
  });

  it('records a failed generation and lets the next request start over', async () => {
    const schema = api.runtime.schema;
    let calls = 0;
    const flaky: SchemaSource = {
      load: (project, options) => {
        calls += 1;
        return calls === 1 ? Promise.reject(new WarehouseError('the warehouse did not answer')) : schema.load(project, options);
      },
    };
    api.runtime.schema = flaky;
    const failed = await generate();
    expect(failed.status).toBe(502);
    const stuck = (await api.call('GET', '/api/v1/projects/wiz')).json as Project;
    expect(stuck.state).toBe('pack_generation');
    expect(stuck.pack_generation).toMatchObject({ status: 'failed', error: expect.stringContaining('the warehouse did not answer') });
    const retried = await generate();
    expect(retried.status).toBe(200);
    expect(retried.json.state).toBe('pack_generation_done');
  });

  it('needs a run key, and an admin key to send files: lower scopes are refused with 403', async () => {
    const readKey = await api.createKey('read');
    expect((await api.call('POST', '/api/v1/projects/wiz/pack-generate', {}, { key: readKey })).status).toBe(403);
    expect((await api.call('POST', '/api/v1/projects/wiz/pack-accept', {}, { key: readKey })).status).toBe(403);
    const runKey = await api.createKey('run');
    const drafted = await api.call('POST', '/api/v1/projects/wiz/pack-generate', {}, { key: runKey });
    expect(drafted.status).toBe(200);
    const ownFiles = await api.call('POST', '/api/v1/projects/wiz/pack-accept', { files: drafted.json.pack_draft.files }, { key: runKey });
    expect(ownFiles.status).toBe(403);
    expect(ownFiles.json.error.message).toMatch(/sending a pack's files/);
    expect((await api.call('POST', '/api/v1/projects/wiz/pack-accept', {}, { key: runKey })).status).toBe(200);
  });

  it('creates projects on shipped packs only: no pack directories of the server, no project references', async () => {
    for (const domain of ['/etc', './domain-packs/general', 'project:wiz@1']) {
      const response = await api.call('POST', '/api/v1/projects', { name: 'x', domain });
      expect(response.status, domain).toBe(400);
      expect(issuePaths(response.json)).toEqual(['domain']);
    }
  });

  it('validates the body', async () => {
    const response = await generate({ goal: '', colour: 'red' });
    expect(response.status).toBe(400);
    expect(issuePaths(response.json)).toEqual(['colour', 'goal']);
  });
});
