/**
 * The worker's probe endpoints for Kubernetes: `/healthz` answers while the event loop does
 * (liveness), `/readyz` only while every worker is running, not shutting down, and Redis and the run
 * store answer within the probe timeout (readiness).
 */
import { createServer, type Server } from 'node:http';

/** A readiness check must answer before the kubelet's probe timeout. */
export const READINESS_TIMEOUT_MS = 2_000;

/** True when `probe` resolves within the timeout. */
export async function answersWithin(probe: () => Promise<unknown>, timeoutMs = READINESS_TIMEOUT_MS): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([
      probe().then(
        () => true,
        () => false,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export async function startHealthServer(port: number, isReady: () => boolean | Promise<boolean>): Promise<Server> {
  const server = createServer((request, response) => {
    const path = request.url?.split('?')[0];
    const answer = (status: number) =>
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : status === 503 ? 'not ready' : 'not found');
    if (path !== '/readyz') {
      answer(path === '/healthz' ? 200 : 404);
      return;
    }
    Promise.resolve(isReady()).then(
      (ready) => answer(ready ? 200 : 503),
      () => answer(503),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve());
  });
  return server;
}
