// Whether two LangChain messages are equal in every field this package reads: the conversion
// (type, a ChatMessage's role, content with its blocks, tool_call_id, name, tool_calls) and the
// write-back of a rewritten message (id, name, additional_kwargs, response_metadata,
// usage_metadata, invalid_tool_calls, status, artifact, metadata, which it copies from the
// message the governor message was made from). A message rebuilt with those fields equal (a
// checkpointer reload) can then stand for the earlier one: the governor sees the same objects
// and whatever it writes back is equal field for field. Not the governor's `sameContent`: that
// one also compares every plain object's symbol-keyed fields (a dialect's origin records), and
// listing them allocates for every object compared: a rebuilt 10,000-message history took about
// twice as long to recognise with it (node scripts/bench.mjs langchain, alternating runs: 12-21x
// against 25-41x a warm govern). LangChain's fields hold no such records.

function typeOf(msg: Record<string, unknown>): unknown {
  if (typeof msg.type === 'string') return msg.type;
  const get = msg._getType;
  return typeof get === 'function' ? (get as () => unknown).call(msg) : undefined;
}

function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Structural equality of JSON-like values: primitives by `Object.is`, arrays element by element,
 * plain objects by their own enumerable keys in the same order (the order reaches the
 * governor: tool-call arguments are serialised, block fields copied), byte views byte by byte.
 * Any other object (a class instance, a Map…) is equal only to itself: not knowing what it
 * holds, it is never taken for a rebuilt copy.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  if (ArrayBuffer.isView(a) || ArrayBuffer.isView(b)) {
    if (!ArrayBuffer.isView(a) || !ArrayBuffer.isView(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b) || a.byteLength !== b.byteLength) return false;
    const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
    return true;
  }
  if (!isPlain(a) || !isPlain(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i];
    if (k !== kb[i] || !deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/**
 * Whether `a` and `b` (LangChain messages) are equal in their type and every field the
 * conversion or the write-back reads (content, role, tool_call_id, name, tool_calls, id,
 * additional_kwargs, response_metadata, usage_metadata, invalid_tool_calls, status, artifact,
 * metadata), compared with {@link deepEqual}. Fields nothing here reads (`lc_kwargs`, a
 * subclass's own extras) are not compared. Never throws on plain objects or messages.
 */
export function sameMessage(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  if (a === b) return true;
  // Named reads (not a loop over key names): a rebuilt 10,000-message history is compared on
  // every model call, and keyed reads of class instances are several times slower.
  return typeOf(a) === typeOf(b)
    && deepEqual(a.content, b.content)
    && deepEqual(a.role, b.role)
    && deepEqual(a.tool_call_id, b.tool_call_id)
    && deepEqual(a.name, b.name)
    && deepEqual(a.tool_calls, b.tool_calls)
    && deepEqual(a.id, b.id)
    && deepEqual(a.additional_kwargs, b.additional_kwargs)
    && deepEqual(a.response_metadata, b.response_metadata)
    && deepEqual(a.usage_metadata, b.usage_metadata)
    && deepEqual(a.invalid_tool_calls, b.invalid_tool_calls)
    && deepEqual(a.status, b.status)
    && deepEqual(a.artifact, b.artifact)
    && deepEqual(a.metadata, b.metadata);
}
