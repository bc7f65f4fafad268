// A synthetic session with every provider family's signed state mixed in, for the governor's
// target benchmark and the tests that govern such a history for every target.
import { syntheticHistory, type SyntheticMessage } from './synthetic-history.js';

type SyntheticCall = NonNullable<SyntheticMessage['tool_calls']>[number];

/**
 * {@link syntheticHistory} with, on every 25th tool-calling turn, one family's signed state in
 * turn (Anthropic thinking, a Gemini thought signature, a Responses reasoning item, OpenRouter
 * reasoning details, Anthropic server tool blocks, DeepSeek reasoning), and every 10th answer
 * right after tool results turned into a user message there (an environment's complaint: Mistral
 * and Gemini get a marked assistant turn between). Each tool result ends with a line naming it:
 * the plain session draws its results from a few thousand texts that recur, where a real
 * session's results (file contents, command output) are new texts that every request counts.
 */
export function mixedFamilyHistory(n: number, salt: number): SyntheticMessage[] {
  let k = 0;
  let answers = 0;
  return syntheticHistory(n, salt).map((m, i, all): SyntheticMessage => {
    if (m.role === 'tool') return { ...m, content: `${m.content}\n(output ${salt}.${i})` };
    if (m.role === 'assistant' && m.tool_calls === undefined && i > 0 && all[i - 1].role === 'tool' && answers++ % 10 === 0) return { role: 'user', content: `the environment says: ${m.content}` };
    if (m.role !== 'assistant' || m.tool_calls === undefined || m.tool_calls.length === 0 || k++ % 25 !== 0) return m;
    const id = m.tool_calls[0].id;
    switch ((k / 25) % 6 | 0) {
      case 0: return { ...m, thinking_blocks: [{ type: 'thinking', thinking: 'plan', signature: `sig-${id}` }] };
      case 1: return { ...m, tool_calls: [{ ...m.tool_calls[0], extra_content: { google: { thought_signature: `g-${id}` } } } as SyntheticCall, ...m.tool_calls.slice(1)] };
      case 2: return { ...m, thinking_blocks: [{ type: 'reasoning', id: `rs_${id}`, encrypted_content: `e-${id}` }] };
      case 3: return { ...m, reasoning_details: [{ type: 'reasoning.encrypted', id, data: `d-${id}`, index: 0 }] };
      case 4: return { ...m, content: [{ type: 'server_tool_use', id: `srvtoolu_${id}`, name: 'web_search', input: { query: 'q' } }, { type: 'web_search_tool_result', tool_use_id: `srvtoolu_${id}`, content: [] }] } as unknown as SyntheticMessage;
      default: return { ...m, reasoning_content: 'thinking' };
    }
  });
}
