const THINK_BLOCK = /<think>[\s\S]*?<\/think>/gi;
const OPEN_THINK_TAIL = /<think>[\s\S]*$/i;

/** Removes `<think>…</think>` reasoning (and an unterminated trailing `<think>…`) a model leaked into text. */
export function stripThinkTags(text: string): string {
  return text.replace(THINK_BLOCK, '').replace(OPEN_THINK_TAIL, '').trim();
}
