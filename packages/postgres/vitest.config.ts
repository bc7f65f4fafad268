import { defineConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.js';

// A real PostgreSQL server is started once for all test files (test/global-setup.ts); starting it
// and the chaos test's worker processes take a while on a loaded machine.
export default defineConfig(sharedConfig(import.meta.dirname, { globalSetup: ['./test/global-setup.ts'], testTimeout: 120_000, hookTimeout: 120_000 }));
