/** The Embedder port: texts in, fixed-size vectors out. The same text always yields the same vector. */
export interface Embedder {
  /** e.g. `local:hash-384`, `openai:text-embedding-3-small`. Stored with vectors so a model change forces re-indexing. */
  readonly id: string;
  readonly dimensions: number;
  embed(texts: string[], options?: { signal?: AbortSignal }): Promise<number[][]>;
}
