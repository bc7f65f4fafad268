import { defineConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.js';

// Tests run on Node, so they get what the Node entry wires in (synchronous rank loading, ajv);
// the tests of the main entry's own paths switch those off themselves (portable-entry.test.ts).
export default defineConfig(sharedConfig(import.meta.dirname, { setupFiles: ['./src/node/node-sources.ts'] }));
