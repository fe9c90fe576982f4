/**
 * Configuration errors fail fast in the fleet (issue 23): a project whose PostgreSQL warehouse refuses the
 * login — a role that does not exist, a database that does not exist — ends `failed` at
 * the coordinator's first attempt, with a reason naming the setting to fix, and its project can start a
 * new run at once. Real redis-server, real PostgreSQL, the real worker registry with per-project clients.
 * (The throwaway cluster trusts every local login, so a wrong password is checked in the unit tests.)
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createRun } from '../../../src/discovery/phases/create-run.js';
import { projectSchema, type Project } from '../../../src/domain/index.js';
import { createProjectClients } from '../../../src/project-clients.js';
import { createEnvSecretProvider } from '../../../src/secrets/index.js';
import { startTestPostgres } from '../../support/postgres.js';
import { scriptedBrain } from '../discovery/scripted-brain.js';
import { createFleet, type Fleet } from './fleet-harness.js';
import { useRedisServer } from './redis-lifecycle.js';
import { redisServerMissing } from './redis-server.js';

const postgres = await startTestPostgres();
if (!postgres.available) console.log(`skipping the fleet's configuration-error tests: ${postgres.reason}`);
const redis = useRedisServer();

afterAll(async () => {
  if (postgres.available) await postgres.server.stop();
});

/** The reader's URL with one part changed: another user, password or database on the same server. */
function readerUrlWith(change: (url: URL) => void): string {
  if (!postgres.available) throw new Error(postgres.reason);
  const url = new URL(postgres.server.readerUrl);
  change(url);
  return url.toString();
}

async function projectOn(fleet: Fleet, id: string, warehouseUrl: string): Promise<Project> {
  const stamp = '2026-11-27T09:00:00.000Z';
  const project = projectSchema.parse({
    id,
    name: id,
    domain: 'ecommerce',
    warehouse: { url: warehouseUrl },
    llm: 'offline:analyst',
    created_at: stamp,
    updated_at: stamp,
  });
  await fleet.harness.deps.store.upsertProject(project);
  return project;
}

const SETTINGS = { maxSteps: 4, minSteps: 0, areas: [], llm: 'offline:analyst', pack: 'ecommerce', analysisBudgetTokens: 200_000 };

describe.skipIf(redisServerMissing || !postgres.available)("when a project's warehouse refuses the login", () => {
  it.each([
    [
      'a role that does not exist',
      (url: URL): void => {
        url.username = 'no_such_role';
      },
      /role "no_such_role" does not exist.*SQLSTATE 28000.*fix the user in the warehouse URL/,
    ],
    [
      'a database that does not exist',
      (url: URL): void => {
        url.pathname = '/no_such_database';
      },
      /database "no_such_database" does not exist.*SQLSTATE 3D000/,
    ],
  ] as const)(
    'ends the run failed within 10 s at the first attempt, naming the setting, and frees the project (%s)',
    async (_case, change, reason) => {
      const fleet = redis.track(await createFleet(redis.url, scriptedBrain({ exploration: {} }).brain));
      const clients = createProjectClients({
        base: fleet.harness.deps,
        secrets: createEnvSecretProvider({}),
        offlineBrain: scriptedBrain({ exploration: {} }).brain,
      });
      try {
        await fleet.startWorkers({ clients });
        const project = await projectOn(fleet, 'refused', readerUrlWith(change));
        const run = await createRun(fleet.harness.deps.store, project, SETTINGS, new Date());
        await fleet.launcher.launch(run.id);
        const finished = await fleet.waitForRunEnd(run.id, 10_000);

        expect(finished.status).toBe('failed');
        expect(finished.error).toMatch(/the project's warehouse \(warehouse\.url\)/);
        expect(finished.error).toMatch(reason);
        // no secret in what was stored
        expect(finished.error).not.toContain(postgres.available ? postgres.server.readerPassword : '');
        const coordinator = await fleet.producer.queue('coordinator').getJob(run.id);
        expect(coordinator?.attemptsMade ?? 0).toBeLessThanOrEqual(1);
        // the run's document is written before its coordinator job returns
        await fleet.waitForJobEnd('coordinator', run.id);
        expect(await fleet.producer.queue('coordinator').getJobState(run.id)).toBe('completed');
        // the project is free again at once: a new run may start
        await expect(createRun(fleet.harness.deps.store, project, SETTINGS, new Date())).resolves.toMatchObject({ status: 'pending' });
      } finally {
        await clients.close();
      }
    },
  );
});
