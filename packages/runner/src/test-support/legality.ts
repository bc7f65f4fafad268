import type { Message } from '@nanobot/schema';

/**
 * Problems that make a persisted history illegal to replay: tool results without their call
 * (or not directly after it), duplicates, and tool calls left unanswered. Empty when legal.
 */
export function legalityProblems(messages: readonly Message[]): string[] {
  const problems: string[] = [];
  for (let i = 0; i < messages.length; i += 1) {
    const m = messages[i];
    if (m.role === 'assistant' && m.tool_calls && m.tool_calls.length > 0) {
      const expected = new Set(m.tool_calls.map((c) => c.id));
      let j = i + 1;
      const seen = new Set<string>();
      for (; j < messages.length && messages[j].role === 'tool'; j += 1) {
        const id = String(messages[j].tool_call_id);
        if (!expected.has(id)) problems.push(`tool result ${id} at ${j} answers no call of ${i}`);
        if (seen.has(id)) problems.push(`duplicate result ${id} at ${j}`);
        seen.add(id);
      }
      for (const id of expected) if (!seen.has(id)) problems.push(`call ${id} at ${i} unanswered`);
      i = j - 1;
    } else if (m.role === 'tool') {
      problems.push(`orphan tool result at ${i}`);
    }
  }
  return problems;
}
