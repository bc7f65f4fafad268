import type { Message } from '@nanobot/schema';
import type { GovernFn } from '../runner-ports.js';

/**
 * A stand-in governor for unit tests that must not depend on @nanobot/governor's budget logic:
 * drops orphan/duplicate tool results and backfills missing ones, recording what it did.
 */
export const simpleGovern: GovernFn = (messages) => {
  const out: Message[] = [];
  const backfilled: string[] = [];
  const dropped: string[] = [];
  for (let i = 0; i < messages.length; i += 1) {
    const m = messages[i];
    if (m.role === 'tool') {
      dropped.push(String(m.tool_call_id));
      continue;
    }
    out.push(m);
    if (m.role === 'assistant' && m.tool_calls && m.tool_calls.length > 0) {
      const answered = new Map<string, Message>();
      let j = i + 1;
      for (; j < messages.length && messages[j].role === 'tool'; j += 1) {
        const id = String(messages[j].tool_call_id);
        if (!answered.has(id)) answered.set(id, messages[j]);
      }
      for (const c of m.tool_calls) {
        const found = answered.get(c.id);
        if (found) {
          out.push(found);
          dropped.splice(dropped.indexOf(c.id), 1);
        } else {
          backfilled.push(c.id);
          out.push({ role: 'tool', tool_call_id: c.id, name: c.function.name, content: '[Tool result unavailable — call was interrupted or lost]' });
        }
      }
      for (let k = i + 1; k < j; k += 1) {
        const id = String(messages[k].tool_call_id);
        if (!m.tool_calls.some((c) => c.id === id) || answered.get(id) !== messages[k]) dropped.push(id);
      }
      i = j - 1;
    }
  }
  return { messages: out, report: { backfilled, dropped } };
};
