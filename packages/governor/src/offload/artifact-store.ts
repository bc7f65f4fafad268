/** What {@link ArtifactStore.persist} is asked to save: one oversized tool result. */
export interface ArtifactRequest {
  /** Session the result belongs to (`null` = the default bucket). */
  sessionKey: string | null;
  /** The tool call the result answers, as it appears in the model copy. */
  toolCallId: string;
  /** The bytes to save: the text, or pretty JSON for a list of text blocks. */
  body: string;
  /** `txt` for text, `json` for a list of text blocks. */
  extension: 'txt' | 'json';
}

/**
 * Where oversized tool results go so the model copy can carry a short reference instead.
 * Synchronous because governance runs on the request path and the reference writes
 * synchronously too; a store that needs async I/O should write behind and return the location
 * it will use. `persist` may throw: the governor then keeps the (truncated) result inline and
 * reports the failure. It must not mutate the request, and it must return a location whose
 * content equals `body` (a reused tool-call id must never point at another result's file).
 */
export interface ArtifactStore {
  /** Saves one result and returns the location shown to the model (e.g. a file path). */
  persist(request: ArtifactRequest): string;
  /** Reads a saved result back, or `undefined` when unknown. */
  read(location: string): string | undefined;
}
