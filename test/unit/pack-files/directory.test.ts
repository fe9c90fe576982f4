import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NotFoundError, PackError } from '../../../src/errors/index.js';
import { directoryPackFiles, directoryPackLibrary, shippedPackRoot } from '../../../src/pack-files/directory.js';
import { tempDir } from '../../support/temp-dir.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/packs');
const REPO_ROOT = resolve(import.meta.dirname, '../../..');

describe('the filesystem pack library', () => {
  it('finds the shipped domain-packs/ above its own module', () => {
    expect(shippedPackRoot()).toBe(join(REPO_ROOT, 'domain-packs'));
    expect(directoryPackLibrary().location).toBe(join(REPO_ROOT, 'domain-packs'));
    expect(directoryPackLibrary().slugs()).toContain('general');
  });

  it('lists one slug per directory, sorted, leaving out files and hidden directories', () => {
    const root = tempDir('assay-pack-library-');
    for (const name of ['zeta', 'alpha', '.git']) mkdirSync(join(root, name));
    writeFileSync(join(root, 'README.md'), 'not a pack\n');
    expect(directoryPackLibrary(root).slugs()).toEqual(['alpha', 'zeta']);
  });

  it('says which directory is missing when the library itself does not exist', () => {
    const missing = join(tempDir('assay-pack-library-'), 'nowhere');
    const library = directoryPackLibrary(missing);
    expect(library.location).toBe(missing);
    expect(() => library.slugs()).toThrow(PackError);
    expect(() => library.slugs()).toThrow(`domain pack directory ${missing} does not exist`);
  });

  it('serves a pack by slug, and nothing for a slug it does not hold', () => {
    const library = directoryPackLibrary(join(FIXTURES, 'valid'));
    const mini = library.pack('mini');
    expect(mini?.label).toBe(join(FIXTURES, 'valid', 'mini'));
    expect(mini?.read('pack.json')).toContain('"slug": "mini"');
    expect(mini?.read('prompts/nope.md')).toBeUndefined();
    expect(mini?.promptFiles().sort()).toContain('analysis_alpha.md');
    expect(library.pack('nope')).toBeUndefined();
  });

  it('reads a pack directory outside the library by path, and refuses a path that is not a directory', () => {
    const library = directoryPackLibrary(join(FIXTURES, 'valid'));
    const outside = library.directory(join(FIXTURES, 'missing-prompt', 'mini'));
    expect(outside.read('pack.json')).toContain('"mini"');
    const file = join(FIXTURES, 'valid', 'mini', 'pack.json');
    expect(() => library.directory(file)).toThrow(NotFoundError);
    expect(() => library.directory(file)).toThrow(`domain pack directory ${file} does not exist`);
  });

  it('gives no prompt files for a pack directory without prompts/', () => {
    const dir = tempDir('assay-pack-dir-');
    writeFileSync(join(dir, 'pack.json'), '{}');
    expect(existsSync(join(dir, 'prompts'))).toBe(false);
    expect(directoryPackFiles(dir).promptFiles()).toEqual([]);
  });
});
