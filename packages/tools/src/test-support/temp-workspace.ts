import { mkdtemp, mkdir, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createToolContext, type ToolContext, type ToolContextInit } from '@nanobot/tools-core';

/** A temporary directory holding a workspace and, beside it, an "outside" directory. */
export interface TempWorkspace {
  readonly base: string;
  readonly root: string;
  readonly outside: string;
  write(rel: string, content: string): Promise<string>;
  ctx(init?: ToolContextInit): ToolContext;
  dispose(): Promise<void>;
}

/** Creates `<tmp>/ws` (the workspace) and `<tmp>/outside` with a secret file in it. */
export async function createTempWorkspace(): Promise<TempWorkspace> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'nanobot-tools-')));
  const root = join(base, 'ws');
  const outside = join(base, 'outside');
  await mkdir(root);
  await mkdir(outside);
  await writeFile(join(outside, 'secret.txt'), 'TOP SECRET\n');
  return {
    base,
    root,
    outside,
    async write(rel, content) {
      const p = join(root, rel);
      await mkdir(dirname(p), { recursive: true });
      await writeFile(p, content);
      return p;
    },
    ctx: (init = {}) => createToolContext({ workspace: root, ...init }),
    dispose: () => rm(base, { recursive: true, force: true }),
  };
}
