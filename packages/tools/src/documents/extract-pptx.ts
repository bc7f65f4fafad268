import type { OfficeArchive } from './office-zip.js';
import { OfficeDocumentError } from './office-zip.js';
import { readRelationships, streamXml } from './ooxml-xml.js';
import { TextCollector } from './text-collector.js';

/**
 * The text of one slide part: each shape's paragraphs joined by newlines, table rows as
 * tab-separated non-empty cells, in document order (groups walked); `bodyOnly` keeps only the
 * body placeholder (a notes page's notes, not its slide number).
 */
async function shapeTexts(archive: OfficeArchive, part: string, bodyOnly: boolean): Promise<string[]> {
  const out: string[] = [];
  let shape: string[] | null = null;
  let shapeIsBody = false;
  let paragraph: string | null = null;
  let inText = false;
  let row: string[] | null = null;
  let cell: string[] | null = null;
  await streamXml(archive, part, {
    open(name, attrs) {
      if (name === 'p:sp') {
        shape = [];
        shapeIsBody = false;
      } else if (name === 'p:ph' && shape && attrs.type === 'body') shapeIsBody = true;
      else if (name === 'a:tr') row = [];
      else if (name === 'a:tc' && row) cell = [];
      else if (name === 'a:p') paragraph = '';
      else if (name === 'a:t') inText = true;
      else if (name === 'a:br' && paragraph !== null) paragraph += '\n';
    },
    text(text) {
      if (inText && paragraph !== null) paragraph += text;
    },
    close(name) {
      if (name === 'a:t') inText = false;
      else if (name === 'a:p') {
        if (cell) cell.push(paragraph ?? '');
        else if (shape) shape.push(paragraph ?? '');
        paragraph = null;
      } else if (name === 'a:tc' && row && cell) {
        row.push(cell.join('\n').trim());
        cell = null;
      } else if (name === 'a:tr' && row) {
        const line = row.filter((c) => c !== '').join('\t');
        if (line && !bodyOnly) out.push(line);
        row = null;
      } else if (name === 'p:sp' && shape) {
        const text = shape.join('\n');
        if (text && (!bodyOnly || shapeIsBody)) out.push(text);
        shape = null;
      }
    },
  });
  return out;
}

/**
 * PPTX text as the reference extracts it — per slide with text, `--- Slide N ---` and its
 * shapes' text (tables as tab-separated cells) — plus, unlike the reference, the speaker
 * notes after a `Notes:` line. Slides in presentation order; stops at `maxChars`.
 */
export async function extractPptx(archive: OfficeArchive, maxChars: number): Promise<string> {
  if (!archive.names.includes('ppt/presentation.xml')) throw new OfficeDocumentError('invalid Office document: ppt/presentation.xml is missing');
  const ids: string[] = [];
  await streamXml(archive, 'ppt/presentation.xml', {
    open(name, attrs) {
      if (name === 'p:sldId' && attrs['r:id']) ids.push(attrs['r:id']);
    },
  });
  const rels = await readRelationships(archive, 'ppt/_rels/presentation.xml.rels', 'ppt/');
  const collector = new TextCollector(maxChars);
  let number = 0;
  for (const id of ids) {
    const part = rels.get(id);
    if (!part || !archive.names.includes(part)) continue;
    number += 1;
    const lines = await shapeTexts(archive, part, false);
    const slash = part.lastIndexOf('/');
    const relsPart = `${part.slice(0, slash)}/_rels/${part.slice(slash + 1)}.rels`;
    if (archive.names.includes(relsPart)) {
      const slideRels = await readRelationships(archive, relsPart, part.slice(0, slash + 1));
      const notesPart = [...slideRels.values()].find((t) => /notesSlides\/notesSlide\d+\.xml$/.test(t));
      if (notesPart && archive.names.includes(notesPart)) {
        const notes = (await shapeTexts(archive, notesPart, true)).join('\n').trim();
        if (notes) lines.push(`Notes:\n${notes}`);
      }
    }
    if (lines.length > 0 && !collector.add(`--- Slide ${number} ---\n${lines.join('\n')}`, '\n\n')) break;
  }
  return collector.render();
}
