/** The VectorIndex port: named collections of (id, vector, payload), cosine similarity. */

export type PayloadValue = string | number | boolean | null | string[] | number[];
export type Payload = Record<string, PayloadValue>;

export interface VectorPoint {
  /** Stable id; upserting the same id replaces the point. */
  id: string;
  vector: number[];
  payload: Payload;
}

export interface VectorHit {
  id: string;
  /** Cosine similarity in [-1, 1]. */
  score: number;
  payload: Payload;
}

export interface VectorSearchOptions {
  topK: number;
  /** Hits below this score are not returned. */
  minScore?: number;
  /** Exact-match filter on payload fields (all must match). */
  filter?: Record<string, string | number | boolean>;
}

export interface CollectionInfo {
  name: string;
  /** ISO time the collection was created, when known. */
  createdAt: string | null;
  pointCount: number;
}

export interface VectorIndex {
  ensureCollection(name: string, dimensions: number): Promise<void>;
  upsert(name: string, points: VectorPoint[]): Promise<void>;
  search(name: string, vector: number[], options: VectorSearchOptions): Promise<VectorHit[]>;
  /** Dropping a collection that does not exist is a no-op. */
  deleteCollection(name: string): Promise<void>;
  listCollections(): Promise<CollectionInfo[]>;
  close(): Promise<void>;
}
