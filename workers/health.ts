/**
 * The worker's probe endpoints for Kubernetes: `/healthz` answers while the event loop does
 * (liveness), `/readyz` only while every worker is running and not shutting down (readiness).
 */
import { createServer, type Server } from 'node:http';

export async function startHealthServer(port: number, isReady: () => boolean): Promise<Server> {
  const server = createServer((request, response) => {
    const path = request.url?.split('?')[0];
    const status = path === '/healthz' ? 200 : path === '/readyz' ? (isReady() ? 200 : 503) : 404;
    response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : status === 503 ? 'not ready' : 'not found');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve());
  });
  return server;
}
