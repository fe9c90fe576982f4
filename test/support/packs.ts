/**
 * The shipped domain packs (`domain-packs/`) for tests, read as the composition root reads them: the
 * engine's loader over the filesystem adapter of the pack-file port. Same signatures as the loader's
 * without the library argument.
 */
import { GENERAL_PACK_SLUG } from '../../src/discovery/packs/generation/index.js';
import {
  loadPack as loadFromLibrary,
  loadPacks as loadAllFromLibrary,
  type LoadPacksOptions,
} from '../../src/discovery/packs/pack-loader.js';
import type { DomainPack } from '../../src/discovery/packs/pack-schema.js';
import { directoryPackLibrary } from '../../src/pack-files/directory.js';

/** The shipped packs on disk. */
export const SHIPPED_PACKS = directoryPackLibrary();

/** A shipped pack by slug, or a pack directory by path. */
export function loadPack(slug: string, options: LoadPacksOptions = {}): DomainPack {
  return loadFromLibrary(SHIPPED_PACKS, slug, options);
}

/** Every shipped pack, hidden ones with `includeHidden`. */
export function loadPacks(options: LoadPacksOptions = {}): DomainPack[] {
  return loadAllFromLibrary(SHIPPED_PACKS, options);
}

/** The `general` pack, which pack generation specialises (`generatePack`'s `basePack`). */
export function generalPack(): DomainPack {
  return loadPack(GENERAL_PACK_SLUG);
}
