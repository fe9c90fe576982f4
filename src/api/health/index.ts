/** Liveness (`/health`: the process answers) and readiness (`/health/ready`: the store, the warehouse and, with a queue-backed runner, Redis answer). */
import { z } from 'zod';
import type { ApiDeps } from '../context.js';
import { type ApiRoute, defineRoute } from '../routing.js';

/** A readiness probe must answer before the orchestrator's own probe timeout (Kubernetes default: 1 s per probe, usually raised to a few). */
export const READINESS_CHECK_TIMEOUT_MS = 3_000;

const checkOutcomeSchema = z.enum(['ok', 'unreachable', 'timeout']);
type CheckOutcome = z.infer<typeof checkOutcomeSchema>;

const livenessSchema = z.object({ status: z.literal('ok') });
const readinessSchema = z.object({
  status: z.enum(['ready', 'not_ready']),
  /** store and warehouse always; queue with a queue-backed runner. */
  checks: z.record(z.string(), checkOutcomeSchema),
});

async function check(name: string, probe: () => Promise<unknown>, deps: Pick<ApiDeps, 'logger'>, timeoutMs: number): Promise<CheckOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CheckOutcome>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    return await Promise.race([
      probe().then(
        (): CheckOutcome => 'ok',
        (error: unknown): CheckOutcome => {
          // the reason goes to the log only: a connection error can name hosts and users
          deps.logger.warn({ check: name, err: error }, 'readiness check failed');
          return 'unreachable';
        },
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function healthRoutes(deps: ApiDeps, options: { timeoutMs?: number } = {}): ApiRoute[] {
  const timeoutMs = options.timeoutMs ?? READINESS_CHECK_TIMEOUT_MS;
  return [
    defineRoute({
      method: 'get',
      path: '/health',
      access: 'public',
      summary: 'Liveness: the process answers',
      tag: 'health',
      responses: { 200: { description: 'alive', json: livenessSchema } },
      handler: (c) => c.json({ status: 'ok' } satisfies z.infer<typeof livenessSchema>),
    }),
    defineRoute({
      method: 'get',
      path: '/health/ready',
      access: 'public',
      summary: 'Readiness: the store and the warehouse answer',
      tag: 'health',
      responses: {
        200: { description: 'ready', json: readinessSchema },
        503: { description: 'a dependency is unreachable or slow', json: readinessSchema },
      },
      handler: async (c) => {
        const ping = deps.launcher.ping?.bind(deps.launcher);
        const [store, warehouse, queue] = await Promise.all([
          check('store', () => deps.runtime.store.getProject('readiness-probe'), deps, timeoutMs),
          check('warehouse', () => deps.runtime.warehouse.query('SELECT 1 AS ready', { maxRows: 1, timeoutMs }), deps, timeoutMs),
          ping ? check('queue', ping, deps, timeoutMs) : Promise.resolve(undefined),
        ]);
        const checks = { store, warehouse, ...(queue === undefined ? {} : { queue }) };
        const ready = Object.values(checks).every((outcome) => outcome === 'ok');
        return c.json({ status: ready ? 'ready' : 'not_ready', checks } satisfies z.infer<typeof readinessSchema>, ready ? 200 : 503);
      },
    }),
  ];
}
