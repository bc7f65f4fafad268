// Where oversized content goes: the ArtifactStore interface and its two stores.
export { safeFilename } from './artifact-store.js';
export type { ArtifactStore, ArtifactRequest } from './artifact-store.js';
export { FileArtifactStore } from './file-artifact-store.js';
export type { FileArtifactStoreOptions } from './file-artifact-store.js';
export { MemoryArtifactStore } from './memory-artifact-store.js';
