import { nodeSessionFs, type SessionFileHandle, type SessionFs } from '../src/session-fs.js';

/** What the faulty file system does to writes; changeable while a test runs. */
export interface Faults {
  /** Bytes the "disk" still accepts across all writes (then ENOSPC, after a short write). Infinity: no limit. */
  spaceLeft: number;
  /** Fail every fsync with EIO. */
  syncEio: boolean;
  /** Report 0 bytes written (a short write with no error). */
  zeroWrites: boolean;
  /** The next write at offset 0 of a non-empty file writes half its bytes, then throws EIO (one shot). */
  tearNextHeaderWrite?: boolean;
}

const errno = (code: string): Error => Object.assign(new Error(`${code}: simulated`), { code });

/**
 * The real file system with a simulated disk: writes really happen (to the real file) up to
 * `spaceLeft` bytes, the write that crosses it is short, the next one throws ENOSPC — as Linux
 * does on a full file system.
 */
export function faultyFs(faults: Faults): SessionFs {
  const wrap = (handle: SessionFileHandle): SessionFileHandle => ({
    write: async (buffer, offset, length, position) => {
      if (faults.zeroWrites) return { bytesWritten: 0 };
      if (faults.tearNextHeaderWrite && position === 0 && (await handle.stat()).size > 0) {
        faults.tearNextHeaderWrite = false;
        await handle.write(buffer, offset, Math.floor(length / 2), position);
        throw errno('EIO');
      }
      // Overwriting existing bytes needs no space; only growth counts against what is left.
      const { size } = await handle.stat();
      const overwrite = Math.max(0, Math.min(length, size - position));
      if (overwrite === 0 && faults.spaceLeft <= 0) throw errno('ENOSPC');
      const allowed = overwrite + Math.min(length - overwrite, faults.spaceLeft);
      const result = await handle.write(buffer, offset, allowed, position);
      faults.spaceLeft -= Math.max(0, result.bytesWritten - overwrite);
      return result;
    },
    read: (buffer, offset, length, position) => handle.read(buffer, offset, length, position),
    readFile: () => handle.readFile(),
    stat: () => handle.stat(),
    sync: async () => {
      if (faults.syncEio) throw errno('EIO');
      await handle.sync();
    },
    truncate: (length) => handle.truncate(length),
    close: () => handle.close(),
  });
  return {
    ...nodeSessionFs,
    open: async (path, flags) => wrap(await nodeSessionFs.open(path, flags)),
    appendFile: async (path, data) => {
      if (faults.spaceLeft < data.length) throw errno('ENOSPC');
      faults.spaceLeft -= data.length;
      await nodeSessionFs.appendFile(path, data);
    },
  };
}
