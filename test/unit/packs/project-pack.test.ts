/**
 * Project-owned packs: frozen, numbered versions on the project document, named by runs as
 * `project:<id>@<version>`, never changed by a later version.
 */
import { describe, expect, it } from 'vitest';
import {
  acceptPackDraft,
  freezePackVersion,
  generatePack,
  loadProjectPack,
  packContentHash,
  parseProjectPackRef,
  resolvePack,
} from '../../../src/discovery/packs/generation/index.js';
import { generalPack, loadPack } from '../../support/packs.js';
import { projectSchema, type Project } from '../../../src/domain/index.js';
import { inferColumnCategory } from '../../../src/warehouse/column-category.js';
import type { TableSchema } from '../../../src/warehouse/port.js';

const tickets: TableSchema = {
  schema: 'main',
  name: 'tickets',
  qualified: 'main.tickets',
  rowCount: 5_000,
  samples: [],
  columns: (
    [
      ['ticket_id', 'BIGINT'],
      ['queue', 'VARCHAR'],
      ['severity', 'VARCHAR'],
      ['created_at', 'TIMESTAMP'],
      ['resolved_at', 'TIMESTAMP'],
      ['reopen_count', 'INTEGER'],
    ] as const
  ).map(([name, type]) => ({ name, type, nullable: true, category: inferColumnCategory(name, type) })),
};

const NOW = new Date('2026-11-23T09:00:00.000Z');

function project(overrides: Partial<Project> = {}): Project {
  return projectSchema.parse({
    id: 'desk',
    name: 'Service desk',
    domain: 'general',
    warehouse: { url: 'duckdb:desk.duckdb' },
    llm: 'offline:analyst',
    state: 'pack_generation_done',
    created_at: NOW.toISOString(),
    updated_at: NOW.toISOString(),
    ...overrides,
  });
}

async function draftedProject(): Promise<Project> {
  const generated = await generatePack({ tables: [tickets], slug: 'desk', basePack: generalPack() });
  return project({
    pack_draft: {
      slug: 'desk',
      files: generated.files,
      hash: generated.hash,
      generator: 'offline',
      notes: [],
      profile: { basic_info: { dataset_name: 'tickets' } },
      generated_at: NOW.toISOString(),
    },
  });
}

describe('project pack references', () => {
  it('parse project:<id>@<version> and nothing else', () => {
    expect(parseProjectPackRef('project:desk-3fa9c1@12')).toEqual({ projectId: 'desk-3fa9c1', version: 12 });
    for (const bad of ['project:desk', 'project:desk@0', 'project:de:sk@1', 'ecommerce', 'project:@1'])
      expect(parseProjectPackRef(bad), bad).toBeUndefined();
  });
});

describe('accepting a draft', () => {
  it('freezes it as version 1, points the domain at it, makes the project ready and fills an empty profile', async () => {
    const drafted = await draftedProject();
    const { project: accepted, version, pack } = acceptPackDraft(drafted, NOW);
    expect(accepted).toMatchObject({
      state: 'ready',
      domain: 'project:desk@1',
      pack_version: 1,
      profile: { basic_info: { dataset_name: 'tickets' } },
    });
    expect(accepted.pack_draft).toBeUndefined();
    expect(version).toMatchObject({ version: 1, slug: 'desk', source: 'generated', accepted_at: NOW.toISOString() });
    expect(pack.version).toBe('1.0.0');
    expect(version.hash).toBe(packContentHash(pack));
    expect(JSON.parse(version.files['pack.json'] ?? '{}').version).toBe('1.0.0');
  });

  it("keeps the project's own profile", async () => {
    const drafted = { ...(await draftedProject()), profile: { basic_info: { dataset_name: 'ours' } } };
    expect(acceptPackDraft(drafted, NOW).project.profile).toEqual({ basic_info: { dataset_name: 'ours' } });
  });

  it('is refused outside pack_generation_done, naming the state, and without a draft', async () => {
    const drafted = await draftedProject();
    expect(() => acceptPackDraft({ ...drafted, state: 'pack_generation' }, NOW)).toThrow(
      /in state "pack_generation": accepting a draft pack needs state "pack_generation_done"/,
    );
    expect(() => acceptPackDraft(project(), NOW)).toThrow(/has no draft pack to accept/);
  });

  it('refuses an edited document the pack loader refuses, naming the file', async () => {
    const drafted = await draftedProject();
    const files = { ...drafted.pack_draft!.files, 'prompts/exploration.md': 'no variables at all' };
    expect(() => acceptPackDraft(drafted, NOW, files)).toThrow(/prompts\/exploration\.md never uses \{\{SCHEMA_INFO\}\}/);
  });
});

describe('later versions', () => {
  it('append: version 1 stays byte for byte what runs that named it read', async () => {
    const first = acceptPackDraft(await draftedProject(), NOW).project;
    const edited = { ...first.pack_versions[0]!.files };
    const manifest = JSON.parse(edited['pack.json']!) as { areas: Array<{ name: string }> };
    manifest.areas[0]!.name = 'Renamed area';
    edited['pack.json'] = JSON.stringify(manifest);
    const second = freezePackVersion(first, edited, { source: 'edited', now: new Date('2026-11-24T09:00:00.000Z') });
    expect(second.project.domain).toBe('project:desk@2');
    expect(second.project.pack_versions.map((version) => [version.version, version.source])).toEqual([
      [1, 'generated'],
      [2, 'edited'],
    ]);
    expect(second.project.pack_versions[0]).toEqual(first.pack_versions[0]);
    expect(second.pack.version).toBe('2.0.0');
    expect(second.version.hash).not.toBe(first.pack_versions[0]!.hash);

    const v1 = loadProjectPack('project:desk@1', second.project);
    const v2 = loadProjectPack('project:desk@2', second.project);
    expect(v1.areas[0]?.name).not.toBe('Renamed area');
    expect(v2.areas.some((area) => area.name === 'Renamed area')).toBe(true);
    expect(packContentHash(v1)).toBe(first.pack_versions[0]!.hash);
  });
});

describe('resolving a pack reference', () => {
  it('reads shipped slugs through loadPack and project references from the owning project only', async () => {
    const accepted = acceptPackDraft(await draftedProject(), NOW).project;
    const shipped = (slug: string) => loadPack(slug);
    expect(resolvePack(shipped, 'general').slug).toBe('general');
    expect(resolvePack(shipped, 'project:desk@1', accepted).slug).toBe('desk');
    expect(() => resolvePack(shipped, 'project:other@1', accepted)).toThrow(/belongs to project other, not to project desk/);
    expect(() => resolvePack(shipped, 'project:desk@7', accepted)).toThrow(/has no pack version 7 \(versions: 1\)/);
    expect(() => resolvePack(shipped, 'project:desk@1')).toThrow(/can only be read with its project/);
  });
});
