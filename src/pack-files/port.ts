/**
 * Where domain packs' files come from. An adapter only finds and reads files; the engine
 * (`src/discovery/packs/pack-loader.ts`) parses and validates what it reads here, so a broken pack
 * fails with the same message whichever adapter served it.
 */

/** The files of one pack: `pack.json` and `prompts/<name>.md`, by their path inside the pack. */
export interface PackFileSource {
  /** What the loaded pack's `source_dir` records and its errors name: a directory, or a label such as `project:shop@2`. */
  readonly label: string;
  /** The text of one file by its path inside the pack (`pack.json`, `prompts/base_context.md`); `undefined` when it does not exist. */
  read(path: string): string | undefined;
  /** The file names (not paths) under `prompts/`, in any order. */
  promptFiles(): string[];
}

/** A library of packs, one per slug: the shipped `domain-packs/`, or another directory (`assay packs list --dir`). */
export interface PackLibrary {
  /** Where the packs are, for messages (a directory). */
  readonly location: string;
  /** The slugs the library holds, sorted. Throws a `PackError` when the library itself cannot be read. */
  slugs(): string[];
  /** One pack's files by slug; `undefined` when the library holds no pack by that name. */
  pack(slug: string): PackFileSource | undefined;
  /**
   * A pack outside the library, named by its directory (`assay run --pack ./my-pack`, a directory
   * `assay pack generate` wrote). Throws a `NotFoundError` when there is no such directory.
   */
  directory(path: string): PackFileSource;
}
