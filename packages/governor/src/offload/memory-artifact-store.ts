import { TOOL_RESULTS_DIR } from '../constants.js';
import { safeFilename } from '@nanobot/schema';
import type { ArtifactRequest, ArtifactStore } from './artifact-store.js';
import { sha256Hex } from './sha256-hex.js';

/**
 * An {@link ArtifactStore} kept in memory (tests, demos, serverless). Locations look like the
 * filesystem store's (`<root>/.nanobot/tool-results/<session>/<id>.txt`) so the model-visible
 * text is the same; a reused id with different content gets a content-hash suffix. Plain
 * ECMAScript (no `node:*`): runs in Workers, edge functions and browsers as in Node.
 */
export class MemoryArtifactStore implements ArtifactStore {
  readonly #files = new Map<string, string>();
  readonly #root: string;

  /** `root` is the prefix of every location (default `memory:`). */
  constructor(options: { root?: string } = {}) {
    this.#root = options.root ?? 'memory:';
  }

  /** Saves the body under its session bucket; never overwrites a different body. */
  persist(request: ArtifactRequest): string {
    const bucket = safeFilename(request.sessionKey || 'default');
    const base = `${this.#root}/${TOOL_RESULTS_DIR}/${bucket}/${safeFilename(request.toolCallId)}`;
    let location = `${base}.${request.extension}`;
    const existing = this.#files.get(location);
    if (existing !== undefined && existing !== request.body) {
      const hashed = `${base}-${sha256Hex(request.body).slice(0, 12)}`;
      location = `${hashed}.${request.extension}`;
      // Two bodies sharing a 48-bit hash prefix: count on rather than drop the second one.
      for (let n = 2; (this.#files.get(location) ?? request.body) !== request.body; n++) location = `${hashed}-${n}.${request.extension}`;
    }
    if (!this.#files.has(location)) this.#files.set(location, request.body);
    return location;
  }

  /** Returns a saved body, or `undefined`. */
  read(location: string): string | undefined {
    return this.#files.get(location);
  }

  /** Every saved location and its body (a copy). */
  entries(): Map<string, string> {
    return new Map(this.#files);
  }
}
