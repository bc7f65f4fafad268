// Recorded sessions (OpenAI chat shape) written in each library's own message format, as a user
// of that library would hold them. Only the envelope changes; every text and argument is kept.
// Runs in every runtime under test: plain ECMAScript, no runtime API.

const textOf = (content) =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.filter((p) => p?.type === 'text').map((p) => p.text).join('\n') : '';

function parseArgs(raw) {
  try {
    const v = JSON.parse(raw);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : { value: v };
  } catch {
    return { raw };
  }
}

const calls = (m) => (Array.isArray(m.tool_calls) ? m.tool_calls.filter((c) => c?.function?.name) : []);

/** AI SDK `ModelMessage[]`. */
export function toModelMessages(history) {
  const out = [];
  for (const m of history) {
    if (m.role === 'system') out.push({ role: 'system', content: textOf(m.content) });
    else if (m.role === 'user') out.push({ role: 'user', content: textOf(m.content) });
    else if (m.role === 'assistant') {
      const parts = [];
      if (typeof m.reasoning_content === 'string' && m.reasoning_content) parts.push({ type: 'reasoning', text: m.reasoning_content });
      if (textOf(m.content)) parts.push({ type: 'text', text: textOf(m.content) });
      for (const c of calls(m)) parts.push({ type: 'tool-call', toolCallId: c.id, toolName: c.function.name, input: parseArgs(c.function.arguments) });
      out.push({ role: 'assistant', content: parts });
    } else if (m.role === 'tool') {
      out.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: m.tool_call_id, toolName: m.name ?? 'tool', output: { type: 'text', value: textOf(m.content) } }] });
    }
  }
  return out;
}

/** Anthropic Messages API `{ system, messages }` (tool results as user turns of `tool_result` blocks). */
export function toAnthropic(history) {
  const system = history.filter((m) => m.role === 'system').map((m) => textOf(m.content)).join('\n\n');
  const messages = [];
  for (const m of history) {
    if (m.role === 'user') messages.push({ role: 'user', content: textOf(m.content) });
    else if (m.role === 'assistant') {
      const blocks = [];
      if (textOf(m.content)) blocks.push({ type: 'text', text: textOf(m.content) });
      for (const c of calls(m)) blocks.push({ type: 'tool_use', id: c.id, name: c.function.name, input: parseArgs(c.function.arguments) });
      messages.push({ role: 'assistant', content: blocks });
    } else if (m.role === 'tool') {
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: m.tool_call_id, content: textOf(m.content) }] });
    }
  }
  return system ? { system, messages } : { messages };
}

/** OpenAI Responses API input items. */
export function toResponsesItems(history) {
  const out = [];
  for (const m of history) {
    if (m.role === 'system' || m.role === 'user') out.push({ role: m.role, content: textOf(m.content) });
    else if (m.role === 'assistant') {
      if (textOf(m.content)) out.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: textOf(m.content), annotations: [] }] });
      for (const c of calls(m)) out.push({ type: 'function_call', call_id: c.id, name: c.function.name, arguments: c.function.arguments });
    } else if (m.role === 'tool') out.push({ type: 'function_call_output', call_id: m.tool_call_id, output: textOf(m.content) });
  }
  return out;
}

/** LangChain `BaseMessage[]`, built with the classes of the `@langchain/core/messages` passed in. */
export function toBaseMessages(history, lc) {
  const out = [];
  for (const m of history) {
    if (m.role === 'system') out.push(new lc.SystemMessage(textOf(m.content)));
    else if (m.role === 'user') out.push(new lc.HumanMessage(textOf(m.content)));
    else if (m.role === 'assistant') {
      out.push(new lc.AIMessage({ content: textOf(m.content), tool_calls: calls(m).map((c) => ({ id: c.id, name: c.function.name, args: parseArgs(c.function.arguments), type: 'tool_call' })) }));
    } else if (m.role === 'tool') out.push(new lc.ToolMessage({ content: textOf(m.content), tool_call_id: m.tool_call_id, ...(m.name ? { name: m.name } : {}) }));
  }
  return out;
}

/** What a LangChain message holds, as plain JSON (the class instances carry lazy internals). */
export function baseMessageView(m) {
  return {
    type: m.getType(),
    content: m.content,
    ...(m.name !== undefined ? { name: m.name } : {}),
    ...(m.tool_calls?.length ? { tool_calls: m.tool_calls } : {}),
    ...(m.tool_call_id !== undefined ? { tool_call_id: m.tool_call_id } : {}),
    ...(m.status !== undefined ? { status: m.status } : {}),
  };
}
