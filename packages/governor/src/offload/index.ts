// Where oversized content goes: the ArtifactStore interface and the in-memory store. The file
// store needs node:fs and is exported from `@nanobot/governor/node` (src/node.ts) instead.
// The reference's `safe_filename` (Python `strip()`), shared with the rest of the repo.
export { safeFilename } from '@nanobot/schema';
export type { ArtifactStore, ArtifactRequest } from './artifact-store.js';
export { MemoryArtifactStore } from './memory-artifact-store.js';
