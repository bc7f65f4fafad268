// The HTTP plumbing the fake model servers share: a server on 127.0.0.1 that parses each
// accepted JSON request, records it, notices responses the client abandoned, and hands the
// body to the fake's own wire format.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** Options of {@link startRecordingServer}. All callbacks are called synchronously and not awaited. */
export interface RecordingServerOptions {
  /** Whether a request goes to `respond` (others get a 404 with `notFoundBody`). Must not throw. */
  accepts(req: IncomingMessage): boolean;
  /** The JSON body of the 404 answer, in the wire format's error envelope. */
  notFoundBody(req: IncomingMessage): unknown;
  /** Also record the request's path (without query) as `_path`. */
  recordPath?: boolean;
  /** Writes the answer for request number `n` (from 0). May keep `res` open (a hanging stream). */
  respond(res: ServerResponse, body: Record<string, any>, n: number): void;
}

/** A started {@link startRecordingServer}. */
export interface RecordingServer {
  /** `http://127.0.0.1:<port>`, no path. */
  origin: string;
  /** Request bodies, with `_headers` (and `_path` when asked for). */
  requests: Record<string, any>[];
  /** Resolves when a client closed a response that was still open (an aborted stream). */
  aborted: Promise<void>;
  close(): Promise<void>;
}

/** Starts a recording JSON server on an ephemeral port of 127.0.0.1. */
export async function startRecordingServer(options: RecordingServerOptions): Promise<RecordingServer> {
  const requests: Record<string, any>[] = [];
  let markAborted: () => void = () => undefined;
  const aborted = new Promise<void>((r) => (markAborted = r));
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (raw += d));
    req.on('end', () => {
      if (!options.accepts(req)) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify(options.notFoundBody(req)));
        return;
      }
      const body = JSON.parse(raw) as Record<string, any>;
      const n = requests.length;
      const path = options.recordPath ? { _path: (req.url ?? '').split('?')[0] } : {};
      requests.push({ ...body, ...path, _headers: req.headers });
      res.on('close', () => {
        if (!res.writableEnded) markAborted();
      });
      options.respond(res, body, n);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${address.port}`,
    requests,
    aborted,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
