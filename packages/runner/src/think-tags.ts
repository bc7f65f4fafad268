const BLOCK = /<(think|thinking|thought)>([\s\S]*?)<\/\1>/gi;
const UNCLOSED = /<(think|thinking|thought)>[\s\S]*$/i;
const BARE_TAG = /<\/?(think|thinking|thought)>/gi;

/**
 * Splits inline reasoning (`<think>…</think>`, `<thinking>`, `<thought>`) out of model text.
 * An unclosed opening tag (a stream cut mid-thought) hides everything after it. Pure.
 */
export function extractThinkTags(text: string): { content: string; reasoning: string } {
  if (!text.includes('<')) return { content: text, reasoning: '' };
  const parts: string[] = [];
  let content = text.replace(BLOCK, (_m, _tag: string, inner: string) => {
    parts.push(inner.trim());
    return '';
  });
  const unclosed = UNCLOSED.exec(content);
  if (unclosed) {
    parts.push(unclosed[0].replace(BARE_TAG, '').trim());
    content = content.slice(0, unclosed.index);
  }
  content = content.replace(BARE_TAG, '');
  return { content: parts.length > 0 ? content.trim() : content, reasoning: parts.filter(Boolean).join('\n\n') };
}

/** Removes the tags themselves but keeps what they enclosed (for reasoning text that arrived tagged). */
export function stripReasoningTags(text: string): string {
  return text.replace(BARE_TAG, '').trim();
}
