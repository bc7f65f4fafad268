import { pythonIsBlank } from '@nanobot/schema';
import { emptyResultMessage } from '../../constants.js';

function isBlankResult(content: unknown): boolean {
  if (content === null || content === undefined) return true;
  if (typeof content === 'string') return pythonIsBlank(content);
  if (Array.isArray(content)) {
    if (content.length === 0) return true;
    const allText = content.every((p) => p !== null && typeof p === 'object' && (p as { type?: unknown }).type === 'text');
    if (!allText) return false;
    const joined = content.map((p) => {
      const t = (p as { text?: unknown }).text;
      return typeof t === 'string' ? t : '';
    }).join('');
    return pythonIsBlank(joined);
  }
  return false;
}

/**
 * Replaces an empty tool result (null, blank text, empty list, only blank text blocks) with
 * `(<name> completed with no output)`, since some providers reject empty tool messages and the
 * model should know the call ran. Anything else is returned as is.
 */
export function ensureNonemptyToolResult(toolName: string, content: unknown): unknown {
  return isBlankResult(content) ? emptyResultMessage(toolName) : content;
}
