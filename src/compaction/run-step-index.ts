/**
 * The per-run step index: each exploration step embedded into the vector collection `assay_run_{runId}`,
 * searched once per analysis area, dropped when the run ends, and swept when a crash left it behind.
 */
import type { Embedder } from '../embed/port.js';
import type { ExplorationStep } from '../domain/index.js';
import { AssayError, NotFoundError } from '../errors/index.js';
import type { VectorIndex } from '../vector/port.js';
import { executedSql } from './render.js';
import { AREA_TOP_K, type AnalysisAreaIdentity, type StepHit } from './step-picker.js';

const RUN_COLLECTION_PREFIX = 'assay_run_';
/** A collection younger than this may belong to a run that is starting up and not yet listed as active. */
export const ORPHAN_SWEEP_MIN_AGE_MS = 24 * 60 * 60 * 1000;

export function runCollectionName(runId: string): string {
  return `${RUN_COLLECTION_PREFIX}${runId}`;
}

/** Purpose and executed SQL; the thinking is left out because exploratory chain-of-thought blurs the ranking. */
export function stepEmbeddingText(step: ExplorationStep): string {
  return `${step.query_purpose}\n[SQL]: ${executedSql(step)}`;
}

/** `Name — Description. Keywords: k1, k2`: the area's identity as one query text. */
export function areaQueryText(area: AnalysisAreaIdentity): string {
  return `${area.name} — ${area.description}. Keywords: ${area.keywords.join(', ')}`;
}

function stepPointId(step: number): string {
  return `step-${step}`;
}

export interface IndexStepInput {
  embedder: Embedder;
  index: VectorIndex;
  runId: string;
  step: ExplorationStep;
  signal?: AbortSignal;
}

/** Idempotent: the point id is the step number, so a redelivered index job replaces the same point. */
export async function indexStep({ embedder, index, runId, step, signal }: IndexStepInput): Promise<void> {
  const collection = runCollectionName(runId);
  const [vector] = await embedder.embed([stepEmbeddingText(step)], signal === undefined ? undefined : { signal });
  if (vector === undefined)
    throw new AssayError('internal', `embedder ${embedder.id} returned no vector for step ${step.step} of run ${runId}`);
  await index.ensureCollection(collection, embedder.dimensions);
  await index.upsert(collection, [
    {
      id: stepPointId(step.step),
      vector,
      payload: { step: step.step, purpose: step.query_purpose, row_count: step.row_count ?? 0, has_error: step.error !== undefined },
    },
  ]);
}

export interface SearchStepsInput {
  embedder: Embedder;
  index: VectorIndex;
  runId: string;
  area: AnalysisAreaIdentity;
  /** Steps in the run, so the search can return every one of them; read from the collection when omitted. */
  stepCount?: number;
  signal?: AbortSignal;
}

/**
 * Scores of every indexed step against the area. No minimum score and no top-K cut here: the picker
 * applies AREA_MIN_SCORE and AREA_TOP_K itself, so steps left out are reported with their real reason
 * and score instead of vanishing inside the index. A run with no indexed steps yields no hits.
 */
export async function searchStepsForArea({ embedder, index, runId, area, stepCount, signal }: SearchStepsInput): Promise<StepHit[]> {
  const [vector] = await embedder.embed([areaQueryText(area)], signal === undefined ? undefined : { signal });
  if (vector === undefined) throw new AssayError('internal', `embedder ${embedder.id} returned no vector for area ${area.id}`);
  const collection = runCollectionName(runId);
  let hits: Awaited<ReturnType<VectorIndex['search']>>;
  try {
    const pointCount = stepCount ?? (await index.listCollections()).find((info) => info.name === collection)?.pointCount ?? 0;
    hits = await index.search(collection, vector, { topK: Math.max(AREA_TOP_K, pointCount) });
  } catch (error) {
    if (error instanceof NotFoundError) return [];
    throw error;
  }
  return hits.map((hit) => ({ step: hit.payload.step, score: hit.score })).filter((hit): hit is StepHit => typeof hit.step === 'number');
}

export async function dropRunCollection({ index, runId }: { index: VectorIndex; runId: string }): Promise<void> {
  await index.deleteCollection(runCollectionName(runId));
}

export interface SweepOrphansInput {
  index: VectorIndex;
  activeRunIds: Iterable<string>;
  /** @defaultValue ORPHAN_SWEEP_MIN_AGE_MS (24 h) */
  olderThanMs?: number;
  now: Date;
}

/**
 * Drop run collections whose run is not active and that are older than `olderThanMs`. A collection with
 * no known creation time is judged by activity alone. Returns the names dropped, sorted.
 */
export async function sweepOrphanRunCollections({
  index,
  activeRunIds,
  olderThanMs = ORPHAN_SWEEP_MIN_AGE_MS,
  now,
}: SweepOrphansInput): Promise<string[]> {
  const active = new Set(activeRunIds);
  const cutoff = now.getTime() - olderThanMs;
  const orphans = (await index.listCollections())
    .filter((collection) => collection.name.startsWith(RUN_COLLECTION_PREFIX))
    .filter((collection) => !active.has(collection.name.slice(RUN_COLLECTION_PREFIX.length)))
    .filter((collection) => collection.createdAt === null || Date.parse(collection.createdAt) <= cutoff)
    .map((collection) => collection.name)
    .sort();
  for (const name of orphans) await index.deleteCollection(name);
  return orphans;
}
