import { mkdir, open, readFile, readdir, rename, stat, unlink, appendFile } from 'node:fs/promises';

/** The part of a file's identity a store compares to notice that another writer replaced it. */
export interface SessionFileStat {
  size: number;
  dev: number;
  ino: number;
}

/** An open file, as `node:fs/promises` `FileHandle` provides it (the store's only use of one). */
export interface SessionFileHandle {
  /** May write fewer bytes than asked (the store loops) or throw (ENOSPC, EIO…). */
  write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesWritten: number }>;
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  readFile(): Promise<Buffer>;
  stat(): Promise<SessionFileStat>;
  sync(): Promise<void>;
  truncate(length: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The file-system calls `JsonlSessionStore` makes, injectable so tests can simulate a full disk
 * or an I/O error at any byte. Every method may throw Node-style errors (with `code`); all are awaited.
 */
export interface SessionFs {
  open(path: string, flags: 'r' | 'r+' | 'wx'): Promise<SessionFileHandle>;
  readFile(path: string): Promise<Buffer>;
  stat(path: string): Promise<SessionFileStat>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  mkdir(path: string): Promise<void>;
  readdir(path: string): Promise<string[]>;
  appendFile(path: string, data: Uint8Array): Promise<void>;
}

/** The real file system (`node:fs/promises`). */
export const nodeSessionFs: SessionFs = {
  open: (path, flags) => open(path, flags),
  readFile: (path) => readFile(path),
  stat: (path) => stat(path),
  rename: (from, to) => rename(from, to),
  unlink: (path) => unlink(path),
  mkdir: async (path) => {
    await mkdir(path, { recursive: true });
  },
  readdir: (path) => readdir(path),
  appendFile: (path, data) => appendFile(path, data),
};
