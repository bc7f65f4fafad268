// The Anthropic Messages API's turn rules, checked on the projection of a request in our
// message model onto Anthropic turns (system prompt apart, `tool` results as `tool_result`
// blocks of a user turn, a user text right after results joining that turn). The governor
// cannot depend on @nanobot/providers, so this projects the shape only; the runner suite checks
// the real conversion. Empty content (aborted turns recorded as an assistant with no text) is
// not checked here: filling it is the conversion's job (providers' sanitizeEmptyContent).
import type { Message } from '@nanobot/schema';

interface Turn {
  role: 'user' | 'assistant';
  /** Source message indices, for messages. */
  from: number[];
  toolUses: string[];
  toolResults: string[];
  hasText: boolean;
  fromResults: boolean;
}

function hasWords(content: unknown): boolean {
  if (typeof content === 'string') return content.length > 0;
  if (!Array.isArray(content)) return false;
  return content.some((p) => p && typeof p === 'object' && ((p.type === 'text' && typeof p.text === 'string' && p.text.length > 0) || p.type !== 'text'));
}

/** Every Anthropic turn rule `messages` breaks once projected (empty list: accepted). */
export function anthropicTurnViolations(messages: readonly Message[]): string[] {
  const out: string[] = [];
  const turns: Turn[] = [];
  let seenNonSystem = false;
  messages.forEach((m, i) => {
    if (m.role === 'system') {
      if (seenNonSystem) out.push(`message ${i}: a system message after the conversation started`);
      return;
    }
    seenNonSystem = true;
    const last = turns.at(-1);
    if (m.role === 'tool') {
      const id = String(m.tool_call_id);
      if (last && last.role === 'user' && last.fromResults && !last.hasText) {
        last.toolResults.push(id);
        last.from.push(i);
      } else {
        turns.push({ role: 'user', from: [i], toolUses: [], toolResults: [id], hasText: false, fromResults: true });
      }
      return;
    }
    if (m.role === 'user') {
      if (last && last.role === 'user' && last.fromResults && !last.hasText) {
        last.hasText = hasWords(m.content);
        last.from.push(i);
        return;
      }
      turns.push({ role: 'user', from: [i], toolUses: [], toolResults: [], hasText: hasWords(m.content), fromResults: false });
      return;
    }
    if (m.role === 'assistant') {
      const ids = (m.tool_calls ?? []).map((c) => String(c.id));
      turns.push({ role: 'assistant', from: [i], toolUses: ids, toolResults: [], hasText: hasWords(m.content), fromResults: false });
      return;
    }
    out.push(`message ${i}: role ${String(m.role)} has no Anthropic equivalent`);
  });

  if (turns.length === 0) return [...out, 'no user or assistant turn'];
  if (turns[0].role !== 'user') out.push('turn 0: the first turn is not a user turn');
  if (turns.at(-1)!.role !== 'user') out.push(`turn ${turns.length - 1}: the request ends with an assistant turn`);
  const uses = new Set<string>();
  turns.forEach((t, k) => {
    const where = `turn ${k} (messages ${t.from.join(',')})`;
    if (k > 0 && turns[k - 1].role === t.role) out.push(`${where}: two ${t.role} turns in a row`);
    for (const id of t.toolUses) {
      if (uses.has(id)) out.push(`${where}: tool_use id ${id} used twice`);
      uses.add(id);
    }
    if (t.role === 'assistant' && t.toolUses.length > 0) {
      const next = turns[k + 1];
      const answered = new Set(next?.role === 'user' ? next.toolResults : []);
      const missing = t.toolUses.filter((id) => !answered.has(id));
      if (missing.length > 0) out.push(`${where}: tool_use ids were found without tool_result blocks immediately after: ${missing.join(', ')}`);
    }
    if (t.role === 'user' && t.toolResults.length > 0) {
      const prev = turns[k - 1];
      const declared = new Set(prev?.role === 'assistant' ? prev.toolUses : []);
      const seen = new Set<string>();
      for (const id of t.toolResults) {
        if (!declared.has(id)) out.push(`${where}: unexpected tool_use_id ${id} in tool_result blocks`);
        if (seen.has(id)) out.push(`${where}: two tool_result blocks for ${id}`);
        seen.add(id);
      }
    }
  });
  return out;
}
