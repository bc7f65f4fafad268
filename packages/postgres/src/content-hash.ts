import { createHash } from 'node:crypto';

/**
 * The content hash a stored row carries: SHA-256 (hex) of its JSON text as UTF-8, the same as
 * `encode(sha256(convert_to(message::text, 'UTF8')), 'hex')` computes in the database (a `json`
 * column keeps the text it was given). A retry after an unknown commit outcome compares it.
 */
export function contentHash(json: string): string {
  return createHash('sha256').update(json, 'utf8').digest('hex');
}
