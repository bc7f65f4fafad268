// The whole suite again against `ai` 7 and `@ai-sdk/*` 4 (installed beside ai 6 / `@ai-sdk/*` 3
// under npm aliases): the same tests, both majors. Node 22 only (their engines); run by
// `node scripts/test-on-node.mjs 22` in CI.
import { defineConfig } from 'vitest/config';
import { peerMajorsConfig } from '../../vitest.shared.js';

export default defineConfig(
  peerMajorsConfig(import.meta.dirname, {
    ai: 'ai-v7',
    '@ai-sdk/openai': 'ai-sdk-openai-v4',
    '@ai-sdk/anthropic': 'ai-sdk-anthropic-v4',
    '@ai-sdk/provider': 'ai-sdk-provider-v4',
  }),
);
