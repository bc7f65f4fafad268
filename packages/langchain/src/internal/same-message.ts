// Whether two LangChain messages are equal in every field this package reads: the conversion
// (type, a ChatMessage's role, content with its blocks, tool_call_id, name, tool_calls) and the
// write-back of a rewritten message (id, name, additional_kwargs, response_metadata,
// usage_metadata, invalid_tool_calls, status, artifact, metadata, which it copies from the
// message the governor message was made from). A message rebuilt with those fields equal (a
// checkpointer reload) can then stand for the earlier one: the governor sees the same objects
// and whatever it writes back is equal field for field. Values are compared with the dialect
// kit's `sameContent` (JSON-like values, keys in the same order; anything else only to itself).
import { sameContent } from '@nanobot/governor/dialect';

function typeOf(msg: Record<string, unknown>): unknown {
  if (typeof msg.type === 'string') return msg.type;
  const get = msg._getType;
  return typeof get === 'function' ? (get as () => unknown).call(msg) : undefined;
}

/**
 * Whether `a` and `b` (LangChain messages) are equal in their type and every field the
 * conversion or the write-back reads (content, role, tool_call_id, name, tool_calls, id,
 * additional_kwargs, response_metadata, usage_metadata, invalid_tool_calls, status, artifact,
 * metadata), compared with `sameContent`. Fields nothing here reads (`lc_kwargs`, a
 * subclass's own extras) are not compared. Never throws on plain objects or messages.
 */
export function sameMessage(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  if (a === b) return true;
  // Named reads (not a loop over key names): a rebuilt 10,000-message history is compared on
  // every model call, and keyed reads of class instances are several times slower.
  return typeOf(a) === typeOf(b)
    && sameContent(a.content, b.content)
    && sameContent(a.role, b.role)
    && sameContent(a.tool_call_id, b.tool_call_id)
    && sameContent(a.name, b.name)
    && sameContent(a.tool_calls, b.tool_calls)
    && sameContent(a.id, b.id)
    && sameContent(a.additional_kwargs, b.additional_kwargs)
    && sameContent(a.response_metadata, b.response_metadata)
    && sameContent(a.usage_metadata, b.usage_metadata)
    && sameContent(a.invalid_tool_calls, b.invalid_tool_calls)
    && sameContent(a.status, b.status)
    && sameContent(a.artifact, b.artifact)
    && sameContent(a.metadata, b.metadata);
}
