/**
 * `@nanobot/governor/node`: the governor's pieces that need Node's file system (Node, Bun, Deno).
 * The main entry and its dialect subpaths import no `node:*` module, so they bundle for
 * Workers, edge functions and browsers; pass a {@link FileArtifactStore} from here as
 * `artifactStore` where offloaded tool results should go to disk.
 */
export { FileArtifactStore } from './offload/file-artifact-store.js';
export type { FileArtifactStoreOptions } from './offload/file-artifact-store.js';
