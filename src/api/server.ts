/** Serving the API over HTTP with @hono/node-server, and stopping it (open SSE streams included). */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';

export interface RunningServer {
  /** `http://host:port` as bound (port 0 resolves to the real port). */
  url: string;
  port: number;
  /** Stops accepting connections and ends the open ones (SSE streams would otherwise hold the close forever). */
  close(): Promise<void>;
}

export function startApiServer(app: Hono, options: { port: number; host: string }): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port: options.port, hostname: options.host }, (info: AddressInfo) => {
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${host}:${info.port}`,
        port: info.port,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((error) => (error ? fail(error) : done()));
            if ('closeAllConnections' in server) server.closeAllConnections();
          }),
      });
    });
    server.once('error', reject);
  });
}
