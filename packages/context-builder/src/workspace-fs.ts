import { readFile, readdir, stat, writeFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * The file access the context builder needs, so tests and embedders can supply their own.
 * Paths are absolute. Read methods return null for a missing path instead of throwing;
 * other I/O errors may reject. Implementations must not modify what they return later.
 */
export interface WorkspaceFs {
  readText(path: string): Promise<string | null>;
  readBytes(path: string): Promise<Uint8Array | null>;
  /** Names of the entries of a directory (not sorted), or null when it does not exist. */
  listDir(path: string): Promise<string[] | null>;
  isFile(path: string): Promise<boolean>;
  /** Creates a file (and its parent directories); only used when copying workspace templates. */
  writeText?(path: string, text: string): Promise<void>;
}

const missing = (error: unknown): boolean => {
  const code = (error as { code?: unknown })?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
};

/** {@link WorkspaceFs} on the local disk (node:fs). */
export const nodeWorkspaceFs: WorkspaceFs = {
  async readText(path) {
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      if (missing(error) || (error as { code?: unknown }).code === 'EISDIR') return null;
      throw error;
    }
  },
  async readBytes(path) {
    try {
      return await readFile(path);
    } catch (error) {
      if (missing(error) || (error as { code?: unknown }).code === 'EISDIR') return null;
      throw error;
    }
  },
  async listDir(path) {
    try {
      return await readdir(path);
    } catch (error) {
      if (missing(error)) return null;
      throw error;
    }
  },
  async isFile(path) {
    try {
      return (await stat(path)).isFile();
    } catch (error) {
      if (missing(error)) return false;
      throw error;
    }
  },
  async writeText(path, text) {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text, { flag: 'wx' });
  },
};
