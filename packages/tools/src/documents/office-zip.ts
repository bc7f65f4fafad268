import yauzl from 'yauzl';
import type { Entry, ZipFile } from 'yauzl';

/** An OOXML container (DOCX, XLSX, PPTX) refused before or while parsing, with the reason the model reads. */
export class OfficeDocumentError extends Error {}

/** The reference's bounds: members, one member's size, the whole expanded size. */
export const OFFICE_LIMITS = { maxMembers: 10_000, maxMemberBytes: 128 * 1024 * 1024, maxTotalBytes: 256 * 1024 * 1024 } as const;

/** An opened OOXML archive: its member names, and a streaming reader for one member. */
export interface OfficeArchive {
  readonly names: readonly string[];
  /** Streams a member's inflated bytes to `onChunk` until it returns false; resolves when done or stopped. */
  read(name: string, onChunk: (chunk: string) => boolean): Promise<void>;
  close(): void;
}

function openZip(data: Buffer): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(data, { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false, decodeStrings: true }, (error, zip) => (error ? reject(error) : resolve(zip)));
  });
}

function listEntries(zip: ZipFile): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: Entry[] = [];
    let total = 0;
    zip.on('entry', (entry: Entry) => {
      // Bit 0 of the general-purpose flags: an encrypted member.
      if (entry.generalPurposeBitFlag & 0x1) return reject(new OfficeDocumentError('encrypted Office documents are not supported'));
      if (entry.uncompressedSize > OFFICE_LIMITS.maxMemberBytes) return reject(new OfficeDocumentError('Office document contains an oversized internal file'));
      total += entry.uncompressedSize;
      if (total > OFFICE_LIMITS.maxTotalBytes) return reject(new OfficeDocumentError(`Office document expands beyond the ${OFFICE_LIMITS.maxTotalBytes / (1024 * 1024)} MB safety limit`));
      entries.push(entry);
      if (entries.length > OFFICE_LIMITS.maxMembers) return reject(new OfficeDocumentError(`Office document contains too many files (${zip.entryCount})`));
      zip.readEntry();
    });
    zip.on('end', () => resolve(entries));
    zip.on('error', reject);
    zip.readEntry();
  });
}

/**
 * Opens an OOXML container after checking it as the reference does: a valid zip, at most 10,000
 * members, none encrypted, none over 128 MB expanded, 256 MB in all. Sizes are the declared ones,
 * and yauzl stops a member that inflates past its declaration, so a zip bomb is refused or cut
 * short, never expanded. Throws `OfficeDocumentError`.
 */
export async function openOfficeArchive(data: Buffer): Promise<OfficeArchive> {
  let zip: ZipFile;
  try {
    zip = await openZip(data);
  } catch (error) {
    throw new OfficeDocumentError(`invalid Office document: ${(error as Error).message}`);
  }
  if (zip.entryCount > OFFICE_LIMITS.maxMembers) {
    zip.close();
    throw new OfficeDocumentError(`Office document contains too many files (${zip.entryCount})`);
  }
  let entries: Entry[];
  try {
    entries = await listEntries(zip);
  } catch (error) {
    zip.close();
    throw error instanceof OfficeDocumentError ? error : new OfficeDocumentError(`invalid Office document: ${(error as Error).message}`);
  }
  const byName = new Map(entries.map((e) => [e.fileName, e]));
  return {
    names: entries.map((e) => e.fileName),
    read(name, onChunk) {
      const entry = byName.get(name);
      if (!entry) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        zip.openReadStream(entry, (error, stream) => {
          if (error) return reject(new OfficeDocumentError(`invalid Office document: ${error.message}`));
          const decoder = new TextDecoder('utf-8');
          let stopped = false;
          stream.on('data', (chunk: Buffer) => {
            if (stopped) return;
            if (!onChunk(decoder.decode(chunk, { stream: true }))) {
              stopped = true;
              stream.destroy();
              resolve();
            }
          });
          stream.on('end', () => {
            if (!stopped) {
              onChunk(decoder.decode());
              resolve();
            }
          });
          stream.on('error', (e: Error) => (stopped ? resolve() : reject(new OfficeDocumentError(`invalid Office document: ${e.message}`))));
        });
      });
    },
    close: () => zip.close(),
  };
}
