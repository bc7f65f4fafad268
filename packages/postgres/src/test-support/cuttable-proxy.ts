import { createServer, connect } from 'node:net';
import type { Server, Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real server, for "the server went away" tests: `cut()`
 * drops every connection and refuses new ones; `cutOn(text)` drops them the moment a client sends
 * bytes containing `text` (e.g. `commit`), before the server sees them.
 */
export interface CuttableProxy {
  port: number;
  cut(): void;
  cutOn(text: string): void;
  close(): Promise<void>;
}

/** Starts a proxy to `host:port`. */
export async function startCuttableProxy(host: string, port: number): Promise<CuttableProxy> {
  const sockets = new Set<Socket>();
  let refused = false;
  let trigger: string | null = null;
  const cut = (): void => {
    refused = true;
    for (const s of sockets) s.destroy();
    sockets.clear();
  };
  const server: Server = createServer((client) => {
    if (refused) {
      client.destroy();
      return;
    }
    const upstream = connect(port, host);
    sockets.add(client);
    sockets.add(upstream);
    client.on('data', (chunk: Buffer) => {
      if (trigger !== null && chunk.toString('latin1').toLowerCase().includes(trigger)) {
        cut();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const close = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', close);
    upstream.on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    cut,
    cutOn(text: string) {
      trigger = text.toLowerCase();
    },
    close: () =>
      new Promise<void>((resolve) => {
        cut();
        server.close(() => resolve());
      }),
  };
}
