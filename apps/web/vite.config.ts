import { resolve } from 'node:path';
import { defineConfig } from 'vite';

// The page: src/client (plain TypeScript + CSS) → dist/client, served by the node:http server.
export default defineConfig({
  root: resolve(import.meta.dirname, 'src/client'),
  base: '/',
  logLevel: 'warn',
  build: {
    outDir: resolve(import.meta.dirname, 'dist/client'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
  },
});
