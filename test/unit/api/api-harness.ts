/**
 * An in-process API over real parts (embedded store, DuckDB shop warehouse, shipped packs) with a
 * RunLauncher double that records what the API asked it to do and, like a real launcher, marks a
 * cancelled run in the store. Runs are moved along by the tests through the store.
 */
import type { Hono } from 'hono';
import { createApiKey } from '../../../src/api/auth/keys.js';
import { createApi, type CreateApiOptions } from '../../../src/api/index.js';
import type { AssayConfig } from '../../../src/config/index.js';
import type { DiscoveryDeps } from '../../../src/discovery/context.js';
import type { ApiKeyScope, Project, Run } from '../../../src/domain/index.js';
import type { RunLauncher } from '../../../src/fleet/port.js';
import { silentLogger } from '../../../src/logging/index.js';
import type { RunStore } from '../../../src/store/port.js';
import { createHarness } from '../../support/engine-harness.js';

export class RecordingLauncher implements RunLauncher {
  readonly launched: string[] = [];
  readonly cancelled: string[] = [];
  closed = false;
  /** When set, launch throws it (a broken runner). */
  launchError: Error | undefined;

  constructor(private readonly store: RunStore) {}

  async launch(runId: string): Promise<void> {
    if (this.launchError) throw this.launchError;
    this.launched.push(runId);
  }

  async cancel(runId: string): Promise<void> {
    this.cancelled.push(runId);
    await this.store.updateRun(runId, (run) => ({ ...run, status: 'cancelled', error: 'cancelled by request' }));
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

export interface ApiHarness {
  app: Hono;
  runtime: DiscoveryDeps;
  launcher: RecordingLauncher;
  /** The pre-made `shop` project (ecommerce pack, state ready). */
  project: Project;
  /** An admin key not bound to a project: what `call` sends unless told otherwise. */
  adminKey: string;
  /** A new key of `scope`, optionally bound to a project. */
  createKey(scope: ApiKeyScope, projectId?: string): Promise<string>;
  /** `options.key`: another key, or null to send none. */
  call(
    method: string,
    path: string,
    body?: unknown,
    options?: { key?: string | null; headers?: Record<string, string> },
  ): Promise<{ status: number; json: any; text: string; headers: Headers }>;
  /** Moves a run along as a runner would. */
  patchRun(runId: string, patch: Partial<Run>): Promise<Run>;
  close(): Promise<void>;
}

export async function createApiHarness(
  options: { config?: (config: AssayConfig) => AssayConfig; api?: Partial<CreateApiOptions>; warehousePath?: string } = {},
): Promise<ApiHarness> {
  const harness = await createHarness(
    () => '{"done": true, "summary": "nothing to explore"}',
    options.warehousePath ? { warehousePath: options.warehousePath } : {},
  );
  const runtime = harness.deps;
  const launcher = new RecordingLauncher(runtime.store);
  const config = options.config ? options.config(runtime.config) : runtime.config;
  const createKey = async (scope: ApiKeyScope, projectId?: string) =>
    (await createApiKey(runtime.store, { name: `test-${scope}`, scope, projectId }, new Date())).key;
  const adminKey = await createKey('admin');
  const app = createApi({
    runtime,
    launcher,
    config,
    logger: silentLogger,
    events: { pollIntervalMs: 10, heartbeatMs: 60_000 },
    ...options.api,
  });
  return {
    app,
    runtime,
    launcher,
    project: harness.project,
    adminKey,
    createKey,
    async call(method, path, body, callOptions = {}) {
      const key = callOptions.key === undefined ? adminKey : callOptions.key;
      const headers: Record<string, string> = { ...(key === null ? {} : { Authorization: `Bearer ${key}` }), ...callOptions.headers };
      const init: RequestInit = { method, headers };
      if (body !== undefined) {
        init.body = typeof body === 'string' ? body : JSON.stringify(body);
        headers['Content-Type'] = 'application/json';
      }
      const response = await app.request(path, init);
      const text = await response.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: response.status, json, text, headers: response.headers };
    },
    patchRun: (runId, patch) => runtime.store.updateRun(runId, (run) => ({ ...run, ...patch })),
    close: harness.close,
  };
}

/** Error issue paths of a 400 body, sorted. */
export function issuePaths(json: { error?: { issues?: Array<{ path: string }> } }): string[] {
  return (json.error?.issues ?? []).map((issue) => issue.path).sort();
}
