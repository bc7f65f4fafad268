import type { ContentPart, MessageContent } from '@nanobot/schema';
import type { WorkspaceFs } from './workspace-fs.js';

const EXTENSION_MIME: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  svg: 'image/svg+xml',
  heic: 'image/heic',
  tif: 'image/tiff',
  tiff: 'image/tiff',
};

/** MIME type of an image from its magic bytes (PNG, JPEG, GIF, WebP), else from the extension; null if unknown. */
export function detectImageMime(bytes: Uint8Array, path: string): string | null {
  const b = bytes;
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47 && b[4] === 0x0d && b[5] === 0x0a && b[6] === 0x1a && b[7] === 0x0a) {
    return 'image/png';
  }
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  const ascii = (start: number, end: number): string => String.fromCharCode(...b.subarray(start, end));
  if (b.length >= 6 && (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a')) return 'image/gif';
  if (b.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  const ext = path.toLowerCase().split('.').pop() ?? '';
  return EXTENSION_MIME[ext] ?? null;
}

/**
 * User content for text plus image paths: each readable image becomes an inline base64
 * `image_url` block (with `_meta.path`), images first, then the text block. Paths that are
 * missing or not images are ignored; with no usable image the plain text is returned.
 */
export async function buildUserContent(text: string, imagePaths: readonly string[] | null | undefined, fs: WorkspaceFs): Promise<MessageContent> {
  if (!imagePaths || imagePaths.length === 0) return text;
  const images: ContentPart[] = [];
  for (const path of imagePaths) {
    if (typeof path !== 'string' || path === '' || !(await fs.isFile(path))) continue;
    const bytes = await fs.readBytes(path);
    if (!bytes) continue;
    const mime = detectImageMime(bytes, path);
    if (!mime || !mime.startsWith('image/')) continue;
    images.push({
      type: 'image_url',
      image_url: { url: `data:${mime};base64,${Buffer.from(bytes).toString('base64')}` },
      _meta: { path },
    });
  }
  if (images.length === 0) return text;
  return [...images, { type: 'text', text }];
}

/** Text with one `[Attachment: <path>]` line per non-image attachment (after a blank line), so the model can read_file them. */
export function appendAttachmentLines(text: string, attachmentPaths: readonly string[]): string {
  const lines = attachmentPaths.filter((p) => typeof p === 'string' && p !== '').map((p) => `[Attachment: ${p}]`);
  if (lines.length === 0) return text;
  return text === '' ? lines.join('\n') : `${text}\n\n${lines.join('\n')}`;
}
