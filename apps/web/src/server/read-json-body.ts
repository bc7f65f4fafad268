import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-error.js';

/** Default limit of a request body. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Reads a JSON object body. Refuses (with an {@link HttpError}) anything but
 * `application/json` (which also makes cross-site form posts impossible: they would need a CORS
 * preflight this server never answers), bodies over `limit`, invalid JSON and non-objects. A
 * client that hangs up mid-body rejects with `CLIENT_ABORTED`.
 */
export function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Record<string, unknown>> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') {
    req.resume();
    return Promise.reject(new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the request body as JSON with Content-Type: application/json.'));
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(new HttpError(413, 'BODY_TOO_LARGE', `The request body is over ${limit} bytes.`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (error: HttpError): void => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) {
        fail(new HttpError(413, 'BODY_TOO_LARGE', `The request body is over ${limit} bytes.`));
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('aborted', () => fail(new HttpError(400, 'CLIENT_ABORTED', 'The client closed the connection before sending the whole body.')));
    req.on('error', (error) => fail(new HttpError(400, 'CLIENT_ABORTED', 'The request body could not be read.', { cause: error })));
    req.on('end', () => {
      if (settled) return;
      settled = true;
      const text = Buffer.concat(chunks).toString('utf8');
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        reject(new HttpError(400, 'INVALID_JSON', `The request body is not valid JSON: ${(error as Error).message}`, { cause: error }));
        return;
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        reject(new HttpError(400, 'INVALID_BODY', 'The request body must be a JSON object.'));
        return;
      }
      resolve(value as Record<string, unknown>);
    });
  });
}
