/**
 * One OS process of the multi-process store contract: opens the shared store, then interleaves
 * `updateRun`s of one run — a counter increment, an insight appended to its own area, and every other
 * time the validation of its previous insight — with `upsertStep`s of its own step numbers. Exit 0 when done.
 * Arguments: store spec JSON, run id, worker index, increments.
 */
import { insightSchema, insightValidationSchema } from '../../../src/domain/index.js';
import { createPostgresRunStore } from '../../../src/store/postgres.js';

const [specJson, runId, workerText, countText] = process.argv.slice(2);
const spec = JSON.parse(specJson ?? '{}') as { url: string; schema: string };
const worker = Number(workerText);
const count = Number(countText);
const store = await createPostgresRunStore({ url: spec.url, schema: spec.schema, poolSize: 3 });
try {
  for (let index = 0; index < count; index++) {
    await store.updateRun(runId as string, (run) => ({
      ...run,
      telemetry: { ...run.telemetry, schema_lookup_calls: run.telemetry.schema_lookup_calls + 1 },
      areas: run.areas.map((area, areaIndex) => {
        if (areaIndex !== worker) return area;
        const insights = area.insights.map((insight, position) =>
          position === index - 1 && index % 2 === 0
            ? {
                ...insight,
                validation: insightValidationSchema.parse({
                  status: 'confirmed',
                  verified_count: index,
                  original_count: index,
                  validated_at: new Date().toISOString(),
                }),
              }
            : insight,
        );
        insights.push(
          insightSchema.parse({
            id: `w${worker}-${index}`,
            analysis_area: area.area_id,
            name: `insight ${index} of worker ${worker}`,
            severity: 'medium',
            discovered_at: new Date().toISOString(),
          }),
        );
        return { ...area, insights };
      }),
    }));
    const step = worker * count + index + 1;
    await store.upsertStep({
      run_id: runId as string,
      step,
      action: 'query',
      timestamp: new Date().toISOString(),
      thinking: '',
      query_purpose: `w${worker}`,
      fix_attempts: 0,
      fixed: false,
    });
  }
} finally {
  await store.close();
}
