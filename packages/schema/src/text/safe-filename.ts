import { pythonStrip } from '../python/python-strip.js';

const UNSAFE = /[<>:"/\\|?*]/g;

/** Reference `safe_filename`: path-unsafe characters (`<>:"/\|?*`) become `_`, then trimmed. */
export function safeFilename(name: string): string {
  return pythonStrip(name.replace(UNSAFE, '_'));
}
