import { pyStrip } from '../python/python-strip.js';

const UNSAFE = /[<>:"/\\|?*]/g;

/** Reference `safe_filename`: path-unsafe characters (`<>:"/\|?*`) become `_`, then trimmed. */
export function safeFilename(name: string): string {
  return pyStrip(name.replace(UNSAFE, '_'));
}
