import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { stdioFixture, startHttpFixture } from '../test/fixtures/fixture.js';

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));

afterEach(() => {
  vi.restoreAllMocks();
});

describe('README example', () => {
  it('runs as written, with its two servers swapped for a local fixture and an unreachable URL', async () => {
    const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
    const example = /```ts\n([\s\S]*?)```/.exec(readme)![1];
    const serversBlock = / {2}servers: \{\n[\s\S]*?\n {2}\},\n/;
    expect(example).toMatch(serversBlock);
    const dead = await startHttpFixture();
    await dead.kill();
    (globalThis as Record<string, unknown>).__readmeServers = {
      fs: stdioFixture({ FIXTURE_EXTRA_TOOLS: 'list_directory' }),
      docs: { url: dead.url },
    };
    const source = example.replace(serversBlock, '  servers: (globalThis as { __readmeServers?: unknown }).__readmeServers,\n');
    const dir = join(packageDir, 'test-output');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'readme-example.ts');
    writeFileSync(file, source);

    const logs: unknown[][] = [];
    const warnings: unknown[][] = [];
    vi.spyOn(console, 'log').mockImplementation((...args) => void logs.push(args));
    vi.spyOn(console, 'warn').mockImplementation((...args) => void warnings.push(args));
    try {
      await import(/* @vite-ignore */ file);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(warnings.map((w) => String(w[0]))).toEqual([expect.stringContaining("MCP server 'docs' failed to start")]);
    expect(logs[0]).toEqual(['connected:', ['fs'], 'failed:', ['docs']]);
    expect((logs[1][0] as string[]).slice(0, 2)).toEqual(['mcp_fs_add', 'mcp_fs_calls']);
    expect(logs[1][0]).toContain('mcp_fs_list_directory');
    expect(logs[2]).toEqual(['ok', 'ran list_directory']);
  });
});
