import { connect, createServer } from 'node:net';
import type { Server, Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real server, for network-fault tests. Every fault acts
 * on the bytes as a network would: nothing here speaks the PostgreSQL protocol, a trigger is a
 * piece of SQL text seen in what a client sends (e.g. `commit`, `insert into "nanobot".messages`).
 *
 * - `cut()` drops every connection and refuses new ones; `cutOn(text)` does so the moment a client
 *   sends `text`, before the server sees it.
 * - `refuse()` refuses new connections (established ones keep working); `accept()` undoes it and `cut()`.
 * - `partition()` stops all traffic without closing anything: bytes both ways are held, new
 *   connections wait, a side that closes is not told to the other; `heal()` delivers everything
 *   held, in order, and lets traffic flow again (a partition that heals before TCP gives up).
 *   `partitionOn(text)` partitions the moment a client sends `text` (that chunk is held too).
 * - `dropReplyOn(text)` lets the matching chunk reach the server, swallows the server's reply and
 *   drops that connection: the statement ran (a COMMIT committed), the client never learns it.
 */
export interface CuttableProxy {
  port: number;
  /** `target` (a postgres:// URL) pointed at this proxy. */
  urlFor(target: string): string;
  cut(): void;
  cutOn(text: string): void;
  refuse(): void;
  accept(): void;
  partition(): void;
  heal(): void;
  /** Resolves when a client sent `text` and the proxy partitioned. */
  partitionOn(text: string): Promise<void>;
  /**
   * Resolves once a client sent `text`, the server answered, and the answer was dropped with the
   * connection. With `after`, only on a connection that sent `after` earlier (e.g. the COMMIT of
   * the transaction that inserted a given row).
   */
  dropReplyOn(text: string, options?: { after?: string }): Promise<void>;
  /** Connections currently open through the proxy. */
  readonly connections: number;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket | null;
  /** Bytes from the client not yet forwarded (while partitioned or not yet connected upstream). */
  toServer: Buffer[];
  /** Bytes from the server held while partitioned. */
  toClient: Buffer[];
  /** The server side closed while partitioned: close the client at heal. */
  upstreamClosed: boolean;
  /** Swallow whatever the server sends next, then drop the connection. */
  dropNextReply: (() => void) | null;
  dead: boolean;
  /** Everything the client sent, lowercased (for `after` conditions; kept short). */
  sent: string;
}

interface Trigger {
  text: string;
  /** Fires only on a connection that sent this earlier. */
  after?: string;
  fire: (pair: Pair, chunk: Buffer) => void;
}

/** Starts a proxy to `host:port`. */
export async function startCuttableProxy(host: string, port: number): Promise<CuttableProxy> {
  const pairs = new Set<Pair>();
  let refusing = false;
  let partitioned = false;
  const triggers: Trigger[] = [];

  const kill = (pair: Pair): void => {
    if (pair.dead) return;
    pair.dead = true;
    pairs.delete(pair);
    pair.client.destroy();
    pair.upstream?.destroy();
  };

  const openUpstream = (pair: Pair): void => {
    const upstream = connect(port, host);
    pair.upstream = upstream;
    upstream.on('data', (chunk: Buffer) => {
      if (pair.dead) return;
      if (pair.dropNextReply) {
        const done = pair.dropNextReply;
        pair.dropNextReply = null;
        kill(pair);
        done();
        return;
      }
      if (partitioned) pair.toClient.push(chunk);
      else pair.client.write(chunk);
    });
    const upstreamGone = (): void => {
      if (pair.dead) return;
      if (partitioned) pair.upstreamClosed = true;
      else kill(pair);
    };
    upstream.on('error', upstreamGone);
    upstream.on('close', upstreamGone);
    for (const chunk of pair.toServer.splice(0)) upstream.write(chunk);
  };

  const fromClient = (pair: Pair, chunk: Buffer): void => {
    if (pair.dead) return;
    const text = chunk.toString('latin1').toLowerCase();
    const index = triggers.findIndex((t) => text.includes(t.text) && (t.after === undefined || pair.sent.includes(t.after)));
    pair.sent = (pair.sent + text).slice(-65_536);
    if (index >= 0) {
      const [trigger] = triggers.splice(index, 1);
      trigger!.fire(pair, chunk);
      return;
    }
    forward(pair, chunk);
  };

  const forward = (pair: Pair, chunk: Buffer): void => {
    if (partitioned || pair.upstream === null) pair.toServer.push(chunk);
    else pair.upstream.write(chunk);
  };

  const server: Server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const pair: Pair = { client, upstream: null, toServer: [], toClient: [], upstreamClosed: false, dropNextReply: null, dead: false, sent: '' };
    pairs.add(pair);
    client.on('data', (chunk: Buffer) => fromClient(pair, chunk));
    const clientGone = (): void => {
      // A client that gives up while partitioned: the server learns it at heal.
      if (partitioned && !pair.dead) {
        pair.toServer.push(Buffer.alloc(0));
        pair.upstreamClosed = true;
        return;
      }
      kill(pair);
    };
    client.on('error', clientGone);
    client.on('close', clientGone);
    if (!partitioned) openUpstream(pair);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const proxyPort = typeof address === 'object' && address ? address.port : 0;

  const cut = (): void => {
    refusing = true;
    partitioned = false;
    for (const pair of [...pairs]) kill(pair);
  };

  return {
    port: proxyPort,
    urlFor(target: string) {
      const u = new URL(target);
      u.hostname = '127.0.0.1';
      u.port = String(proxyPort);
      return u.toString();
    },
    cut,
    cutOn(text: string) {
      triggers.push({ text: text.toLowerCase(), fire: () => cut() });
    },
    refuse() {
      refusing = true;
    },
    accept() {
      refusing = false;
    },
    partition() {
      partitioned = true;
    },
    heal() {
      if (!partitioned) return;
      partitioned = false;
      for (const pair of [...pairs]) {
        if (pair.dead) continue;
        if (pair.client.destroyed) {
          kill(pair);
          continue;
        }
        if (pair.upstream === null) {
          openUpstream(pair);
        } else {
          for (const chunk of pair.toServer.splice(0)) if (chunk.length > 0) pair.upstream.write(chunk);
        }
        for (const chunk of pair.toClient.splice(0)) pair.client.write(chunk);
        if (pair.upstreamClosed) kill(pair);
      }
    },
    partitionOn(text: string) {
      return new Promise<void>((resolve) => {
        triggers.push({
          text: text.toLowerCase(),
          fire: (pair, chunk) => {
            partitioned = true;
            forward(pair, chunk);
            resolve();
          },
        });
      });
    },
    dropReplyOn(text: string, options: { after?: string } = {}) {
      return new Promise<void>((resolve) => {
        triggers.push({
          text: text.toLowerCase(),
          ...(options.after !== undefined ? { after: options.after.toLowerCase() } : {}),
          fire: (pair, chunk) => {
            pair.dropNextReply = resolve;
            forward(pair, chunk);
          },
        });
      });
    },
    get connections() {
      return pairs.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        cut();
        server.close(() => resolve());
      }),
  };
}
