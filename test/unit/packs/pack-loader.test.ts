import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { NotFoundError, PackError } from '../../../src/errors/index.js';
import { categoryContext, compareAreas, loadPack, loadPacks, resolveAreas } from '../../../src/discovery/packs/pack-loader.js';
import { directoryPackLibrary } from '../../../src/pack-files/directory.js';
import type { PackFileSource, PackLibrary } from '../../../src/pack-files/port.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/packs');

function loadError(dir: string): Error {
  try {
    loadPacks(directoryPackLibrary(dir), { includeHidden: true });
  } catch (error) {
    return error as Error;
  }
  throw new Error(`expected ${dir} to fail to load`);
}

describe('when a fixture pack is broken', () => {
  const cases: Array<[string, string]> = [
    ['missing-prompt', 'pack "mini": area "beta" has no prompt file prompts/analysis_beta.md'],
    ['unknown-variable', 'pack "mini": prompts/exploration.md uses unknown variable {{FOO}}'],
    ['bad-keywords', 'pack "mini": pack.json: areas[1].keywords: expected at least 3 items'],
    ['duplicate-area', 'pack "mini": pack.json: areas[2].id: duplicate area id "beta"'],
    ['invalid-json', 'pack "mini": pack.json is not valid JSON:'],
  ];

  it.each(cases)('%s fails with one PackError line naming pack, file and field', (fixture, expected) => {
    const error = loadError(join(FIXTURES, fixture));
    expect(error).toBeInstanceOf(PackError);
    expect(error.message.startsWith(expected)).toBe(true);
    expect(error.message).not.toContain('\n');
    expect((error as PackError).details).toMatchObject({ pack: 'mini' });
  });

  it('reports where in the file invalid JSON breaks', () => {
    expect(loadError(join(FIXTURES, 'invalid-json')).message).toMatch(/\(line 6,? column 3\)$/);
  });
});

describe('when a pack is edited into an invalid state', () => {
  let workDir: string | undefined;

  /** A private copy of the valid fixture, so each test can break one thing. */
  function copyOfValid(): string {
    workDir = mkdtempSync(join(tmpdir(), 'assay-packs-'));
    cpSync(join(FIXTURES, 'valid'), workDir, { recursive: true });
    return workDir;
  }

  function editManifest(dir: string, edit: (manifest: Record<string, unknown>) => void): void {
    const file = join(dir, 'mini', 'pack.json');
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    edit(manifest);
    writeFileSync(file, JSON.stringify(manifest));
  }

  afterEach(() => {
    if (workDir) rmSync(workDir, { recursive: true, force: true });
    workDir = undefined;
  });

  const manifestCases: Array<[string, (manifest: any) => void, string]> = [
    ['an upper-case keyword', (m) => (m.areas[0].keywords[1] = 'Second'), 'pack.json: areas[0].keywords[1]: keywords must be lower-case'],
    ['a non-snake_case area id', (m) => (m.areas[0].id = 'Beta-Area'), 'pack.json: areas[0].id: must be snake_case'],
    ['a fractional priority', (m) => (m.areas[0].priority = 1.5), 'pack.json: areas[0].priority: must be an integer'],
    ['a version that is not semver', (m) => (m.version = 'v1'), 'pack.json: version: must be a semantic version'],
    [
      'a profile_schema that is not an object schema',
      (m) => (m.profile_schema = { type: 'array' }),
      'pack.json: profile_schema.type: must be "object"',
    ],
    ['a profile_schema that is a string', (m) => (m.profile_schema = 'form'), 'pack.json: profile_schema:'],
    ['a missing name', (m) => delete m.name, 'pack.json: name: required (expected string)'],
    ['a misspelled field', (m) => (m.areas[0].keyword = ['x']), 'pack.json: areas[0]: Unrecognized key: "keyword"'],
    [
      'a prompt file that does not match its area',
      (m) => (m.areas[0].prompt_file = 'analysis_alpha.md'),
      'pack.json: areas[0].prompt_file: must be "analysis_beta.md" for area "beta"',
    ],
    [
      'a slug that differs from the directory',
      (m) => (m.slug = 'other'),
      'pack.json: slug: "other" does not match the pack directory name "mini"',
    ],
    ['a duplicate category id', (m) => (m.categories[1].id = 'extra'), 'pack.json: categories[1].id: duplicate category id "extra"'],
    [
      'a duplicate area id inside a category',
      (m) => (m.categories[0].areas[1].id = 'delta'),
      'pack.json: categories[0].areas[1].id: duplicate area id "delta"',
    ],
  ];

  it.each(manifestCases)('refuses %s', (_name, edit, expected) => {
    const dir = copyOfValid();
    editManifest(dir, edit);
    const error = loadError(dir);
    expect(error).toBeInstanceOf(PackError);
    expect(error.message).toContain(`pack "mini": ${expected}`);
  });

  it('refuses a prompt that never shows a variable its kind requires', () => {
    const dir = copyOfValid();
    writeFileSync(join(dir, 'mini', 'prompts', 'analysis_gamma.md'), 'Analyse {{AREA_NAME}} without evidence.\n');
    expect(loadError(dir).message).toBe(
      'pack "mini": prompts/analysis_gamma.md never uses {{QUERY_RESULTS}}, which every analysis prompt must show',
    );
  });

  it('refuses a variable in a category exploration context, which takes none', () => {
    const dir = copyOfValid();
    writeFileSync(join(dir, 'mini', 'prompts', 'exploration_context_extra.md'), 'Use {{DATASET}} here.\n');
    expect(loadError(dir).message).toBe(
      'pack "mini": prompts/exploration_context_extra.md uses unknown variable {{DATASET}} (allowed here: none)',
    );
  });

  it('refuses a prompt file no area or prompt refers to', () => {
    const dir = copyOfValid();
    writeFileSync(join(dir, 'mini', 'prompts', 'analysis_omega.md'), '{{QUERY_RESULTS}}\n');
    expect(loadError(dir).message).toBe('pack "mini": prompts/analysis_omega.md is not referenced by pack.json');
  });

  it('refuses an empty prompt', () => {
    const dir = copyOfValid();
    writeFileSync(join(dir, 'mini', 'prompts', 'recommendations.md'), '  \n');
    expect(loadError(dir).message).toBe('pack "mini": prompts/recommendations.md is empty');
  });

  it('refuses a pack directory without pack.json', () => {
    const dir = copyOfValid();
    rmSync(join(dir, 'secret', 'pack.json'));
    expect(loadError(dir).message).toBe('pack "secret": missing pack.json');
  });
});

describe('when the packs are valid', () => {
  const dir = join(FIXTURES, 'valid');

  it('inlines prompt texts and category contexts', () => {
    const pack = loadPack(directoryPackLibrary(dir), 'mini');
    expect(pack.prompts.exploration).toContain('{{SCHEMA_INFO}}');
    expect(pack.areas.find((area) => area.id === 'gamma')?.prompt).toContain('(gamma)');
    expect(categoryContext(pack, 'extra')).toBe('Extra context without variables.\n');
    expect(categoryContext(pack, 'plain')).toBe('');
    expect(categoryContext(pack)).toBe('');
  });

  it('orders base areas by priority descending, then id ascending', () => {
    const pack = loadPack(directoryPackLibrary(dir), 'mini');
    expect(resolveAreas(pack).map((area) => area.id)).toEqual(['gamma', 'alpha', 'beta']);
  });

  it('adds category areas and lets a category area replace the base area with its id', () => {
    const pack = loadPack(directoryPackLibrary(dir), 'mini');
    const areas = resolveAreas(pack, 'extra');
    expect(areas.map((area) => `${area.id}:${area.priority}`)).toEqual(['gamma:9', 'beta:5', 'delta:5', 'alpha:1']);
    expect(areas.find((area) => area.id === 'alpha')?.name).toBe('Alpha (extra)');
  });

  it('gives the same order whatever order the areas are declared in (property)', () => {
    const area = fc.record({ id: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), priority: fc.integer({ min: -2, max: 2 }) });
    fc.assert(
      fc.property(fc.uniqueArray(area, { selector: (item) => item.id, maxLength: 6 }), (areas) => {
        const sorted = [...areas].sort(compareAreas);
        const reversed = [...areas].reverse().sort(compareAreas);
        expect(reversed).toEqual(sorted);
        for (let index = 1; index < sorted.length; index += 1) {
          const previous = sorted[index - 1]!;
          const current = sorted[index]!;
          expect(previous.priority > current.priority || (previous.priority === current.priority && previous.id < current.id)).toBe(true);
        }
      }),
    );
  });

  it('throws NotFoundError for an unknown category, listing the known ones', () => {
    const pack = loadPack(directoryPackLibrary(dir), 'mini');
    expect(() => resolveAreas(pack, 'nope')).toThrow(NotFoundError);
    expect(() => resolveAreas(pack, 'nope')).toThrow('pack "mini" has no category "nope" (categories: extra, plain)');
  });

  it('throws NotFoundError for an unknown pack, listing the available ones', () => {
    expect(() => loadPack(directoryPackLibrary(dir), 'nope')).toThrow(/no domain pack "nope" in .* \(available: mini, secret\)/);
  });
});

describe('when a pack is hidden', () => {
  const dir = join(FIXTURES, 'valid');

  it('is left out of the list by default', () => {
    expect(loadPacks(directoryPackLibrary(dir)).map((pack) => pack.slug)).toEqual(['mini']);
  });

  it('is listed with includeHidden', () => {
    expect(loadPacks(directoryPackLibrary(dir), { includeHidden: true }).map((pack) => pack.slug)).toEqual(['mini', 'secret']);
  });

  it('cannot be loaded by slug unless enabled, and says how to enable it', () => {
    expect(() => loadPack(directoryPackLibrary(dir), 'secret')).toThrow(/hidden; set ASSAY_ENABLE_SYSTEM_TEST=true/);
    expect(loadPack(directoryPackLibrary(dir), 'secret', { includeHidden: true }).hidden).toBe(true);
  });
});

describe('when packs come through another adapter of the pack-file port', () => {
  /** An in-memory library: the loader must need nothing but the port. */
  function memoryLibrary(packs: Record<string, Record<string, string>>): PackLibrary {
    const source = (label: string, files: Record<string, string>): PackFileSource => ({
      label,
      read: (path) => files[path],
      promptFiles: () => Object.keys(files).flatMap((path) => (path.startsWith('prompts/') ? [path.slice('prompts/'.length)] : [])),
    });
    return {
      location: 'memory:test',
      slugs: () => Object.keys(packs).sort(),
      pack: (slug) => (packs[slug] === undefined ? undefined : source(`memory:${slug}`, packs[slug])),
      directory: (path) => {
        throw new NotFoundError(`no directory ${path} in memory`);
      },
    };
  }

  /** The fixture pack's files, as a document. */
  function filesOf(dir: string): Record<string, string> {
    const files: Record<string, string> = { 'pack.json': readFileSync(join(dir, 'pack.json'), 'utf8') };
    for (const name of readdirSync(join(dir, 'prompts'))) files[`prompts/${name}`] = readFileSync(join(dir, 'prompts', name), 'utf8');
    return files;
  }

  it('loads the same pack as from disk, recording where it came from', () => {
    const onDisk = loadPack(directoryPackLibrary(join(FIXTURES, 'valid')), 'mini');
    const inMemory = loadPack(memoryLibrary({ mini: filesOf(join(FIXTURES, 'valid', 'mini')) }), 'mini');
    expect(inMemory).toEqual({ ...onDisk, source_dir: 'memory:mini' });
  });

  it('names the pack, the file and the field of a broken pack, as from disk', () => {
    const files = filesOf(join(FIXTURES, 'bad-keywords', 'mini'));
    const load = () => loadPacks(memoryLibrary({ mini: files }));
    expect(load).toThrow(PackError);
    expect(load).toThrow('pack "mini": pack.json: areas[1].keywords: expected at least 3 items');
  });

  it('lists what the library holds when a slug is unknown', () => {
    const library = memoryLibrary({ mini: filesOf(join(FIXTURES, 'valid', 'mini')) });
    expect(() => loadPack(library, 'nope')).toThrow('no domain pack "nope" in memory:test (available: mini)');
  });

  it('asks the library for a pack named by a path', () => {
    expect(() => loadPack(memoryLibrary({}), './somewhere')).toThrow('no directory ./somewhere in memory');
  });
});
