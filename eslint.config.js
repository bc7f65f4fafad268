// Lint rules that keep the package graph honest: no deep imports across packages, and the
// model SDKs only inside @nanobot/providers (see ../shared/design/ARCHITECTURE.md).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const deepImportPatterns = [
  {
    group: ['@nanobot/*/src', '@nanobot/*/src/**', '@nanobot/*/dist', '@nanobot/*/dist/**'],
    message: 'Import a package through its public entry point, never its src/ or dist/ files.',
  },
  {
    group: ['**/packages/*/src/**', '**/packages/*/dist/**', '../../*/src/**', '../../../packages/**', '../../../apps/**'],
    message: 'No relative imports across packages: depend on the package and import its entry point.',
  },
];
const sdkImports = [
  { name: 'openai', message: 'The openai SDK is imported only inside packages/providers.' },
  { name: '@anthropic-ai/sdk', message: 'The Anthropic SDK is imported only inside packages/providers.' },
];
const sdkPatterns = [
  { group: ['openai/*', '@anthropic-ai/sdk/*'], message: 'Model SDKs are imported only inside packages/providers.' },
];

export default tseslint.config(
  {
    ignores: ['**/dist/**', 'docs/api/**', '.ci-reports/**', '**/node_modules/**', '**/.turbo/**', '**/coverage/**', 'apps/web/public/**', 'packages/governor/test/types/.readme/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly',
        setInterval: 'readonly', clearInterval: 'readonly', Buffer: 'readonly', URL: 'readonly',
        AbortController: 'readonly', AbortSignal: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly',
        structuredClone: 'readonly', fetch: 'readonly', Response: 'readonly', Request: 'readonly',
        Headers: 'readonly', performance: 'readonly', queueMicrotask: 'readonly', setImmediate: 'readonly', ReadableStream: 'readonly',
        document: 'readonly', window: 'readonly', EventSource: 'readonly', navigator: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-control-regex': 'off',
      'no-restricted-imports': ['error', { paths: sdkImports, patterns: [...deepImportPatterns, ...sdkPatterns] }],
    },
  },
  {
    files: ['packages/providers/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: deepImportPatterns }],
    },
  },
  {
    // The provider stand-ins are proven against the real SDKs (tests only, never published).
    files: ['tooling/provider-wire/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: deepImportPatterns }],
    },
  },
  {
    // Type tests of the governor compile its README examples against the real SDK types; the pack
    // smoke test's majors consumer is a user's program on the openai SDK (never published).
    files: ['packages/governor/test/types/**', 'scripts/pack-smoke/majors-consumer.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: deepImportPatterns }],
    },
  },
);
