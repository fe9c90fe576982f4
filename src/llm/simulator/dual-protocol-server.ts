/**
 * One TCP port that speaks HTTP/1.1 and cleartext HTTP/2 with prior knowledge (h2c), so every
 * official SDK works against it unchanged: the Anthropic and OpenAI SDKs send HTTP/1.1, the AWS SDK
 * opens h2c. Each connection's first bytes are compared with the HTTP/2 client preface and the
 * socket is handed to the matching Node server.
 */
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';

/** A request handler that serves both protocols through Node's compatible request/response API. */
export type DualProtocolHandler = (
  request: http.IncomingMessage | http2.Http2ServerRequest,
  response: http.ServerResponse | http2.Http2ServerResponse,
) => void;

/** RFC 9113 §3.4: every HTTP/2 connection starts with exactly these 24 bytes. */
const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

export interface DualProtocolServer {
  readonly port: number;
  /** Stop accepting and destroy every open connection (keep-alive and HTTP/2 sessions included). */
  close(): Promise<void>;
}

/** True once `head` is enough to decide; `isHttp2` says which way. */
function classifyPreface(head: Buffer): { decided: boolean; isHttp2: boolean } {
  const compared = Math.min(head.length, HTTP2_PREFACE.length);
  const matches = head.subarray(0, compared).equals(HTTP2_PREFACE.subarray(0, compared));
  if (!matches) return { decided: true, isHttp2: false };
  return { decided: compared === HTTP2_PREFACE.length, isHttp2: compared === HTTP2_PREFACE.length };
}

export async function listenDualProtocol(
  handler: DualProtocolHandler,
  options: { port: number; host: string },
): Promise<DualProtocolServer> {
  const http1Server = http.createServer(handler);
  const http2Server = http2.createServer(handler);
  const sockets = new Set<net.Socket>();

  const tcpServer = net.createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    // a client that resets mid-handshake must not crash the simulator
    socket.on('error', () => socket.destroy());
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const { decided, isHttp2 } = classifyPreface(head);
      if (!decided) return;
      socket.off('data', onData);
      socket.pause();
      socket.unshift(head);
      if (isHttp2) {
        // the HTTP/2 session reads what is already buffered on its own (next tick); resuming here
        // would emit those bytes to no listener and lose the preface
        http2Server.emit('connection', socket);
      } else {
        http1Server.emit('connection', socket);
        socket.resume();
      }
    };
    socket.on('data', onData);
  });

  await new Promise<void>((resolve, reject) => {
    tcpServer.once('error', reject);
    tcpServer.listen(options.port, options.host, () => {
      tcpServer.off('error', reject);
      resolve();
    });
  });
  const address = tcpServer.address() as net.AddressInfo;

  return {
    port: address.port,
    async close(): Promise<void> {
      const closed = new Promise<void>((resolve) => tcpServer.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
