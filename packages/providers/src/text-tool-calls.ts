import { parsePythonJson } from '@nanobot/schema';

const BLOCK = /<tool_call>\s*(?:```(?:json)?\s*)?([\s\S]*?)\s*(?:```\s*)?<\/tool_call>/g;

/** A call found in the text. */
export interface TextToolCall {
  name: string;
  arguments: unknown;
}

/**
 * Finds `<tool_call>{"name": …, "arguments": …}</tool_call>` blocks (optionally fenced) that some
 * local models and servers emit as text instead of structured calls, and returns them with the
 * remaining visible text. Blocks that are not JSON objects with a string `name` stay in the text.
 */
export function extractTextToolCalls(content: string): { content: string | null; calls: TextToolCall[] } {
  if (!content.includes('<tool_call>')) return { content, calls: [] };
  const calls: TextToolCall[] = [];
  const rest = content.replace(BLOCK, (whole, body: string) => {
    let parsed: unknown;
    try {
      parsed = parsePythonJson(body.trim());
    } catch {
      return whole;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return whole;
    const record = parsed as { name?: unknown; arguments?: unknown; parameters?: unknown };
    if (typeof record.name !== 'string' || record.name === '') return whole;
    calls.push({ name: record.name, arguments: record.arguments ?? record.parameters ?? {} });
    return '';
  });
  if (calls.length === 0) return { content, calls };
  const trimmed = rest.trim();
  return { content: trimmed === '' ? null : trimmed, calls };
}
