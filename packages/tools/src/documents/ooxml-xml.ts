import sax from 'sax';
import type { OfficeArchive } from './office-zip.js';
import { OfficeDocumentError } from './office-zip.js';

/** Element events of a streamed XML part: names keep their prefix (`w:p`, `a:t`). */
export interface XmlHandlers {
  open?(name: string, attributes: Record<string, string>): void;
  close?(name: string): void;
  text?(text: string): void;
  /** Asked after every chunk: true stops reading the part (the output is full). */
  done?(): boolean;
}

/**
 * Streams one part of an archive through a strict SAX parser (isaacs' `sax`), so a huge sheet
 * or document is never held whole in memory and reading stops as soon as `done()` says so.
 * A part that is not well-formed XML throws `OfficeDocumentError`.
 */
export async function streamXml(archive: OfficeArchive, part: string, handlers: XmlHandlers): Promise<void> {
  const parser = sax.parser(true, { trim: false, normalize: false, position: false });
  let failure: Error | null = null;
  parser.onerror = (error) => {
    failure = error;
  };
  parser.onopentag = (node) => handlers.open?.(node.name, node.attributes as Record<string, string>);
  parser.onclosetag = (name) => handlers.close?.(name);
  parser.ontext = (text) => handlers.text?.(text);
  let stopped = false;
  await archive.read(part, (chunk) => {
    if (failure) return false;
    parser.write(chunk);
    stopped = handlers.done?.() ?? false;
    return !failure && !stopped;
  });
  // A part left early (the output is full) is not checked for its end.
  if (!failure && !stopped) parser.close();
  if (failure) throw new OfficeDocumentError(`invalid Office document: ${part}: ${String((failure as Error).message).split('\n')[0]}`);
}

/** `rId → target` of a relationships part, targets resolved against `baseDir` (e.g. `word/`). */
export async function readRelationships(archive: OfficeArchive, relsPart: string, baseDir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  await streamXml(archive, relsPart, {
    open(name, attrs) {
      if (name !== 'Relationship' || !attrs.Id || !attrs.Target) return;
      const target = attrs.Target.startsWith('/') ? attrs.Target.slice(1) : normalise(`${baseDir}${attrs.Target}`);
      out.set(attrs.Id, target);
    },
  });
  return out;
}

function normalise(path: string): string {
  const parts: string[] = [];
  for (const p of path.split('/')) {
    if (p === '..') parts.pop();
    else if (p !== '.' && p !== '') parts.push(p);
  }
  return parts.join('/');
}
