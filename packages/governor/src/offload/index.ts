// Where oversized content goes: the ArtifactStore interface and its two stores.
// The reference's `safe_filename` (Python `strip()`), shared with the rest of the repo.
export { safeFilename } from '@nanobot/schema';
export type { ArtifactStore, ArtifactRequest } from './artifact-store.js';
export { FileArtifactStore } from './file-artifact-store.js';
export type { FileArtifactStoreOptions } from './file-artifact-store.js';
export { MemoryArtifactStore } from './memory-artifact-store.js';
