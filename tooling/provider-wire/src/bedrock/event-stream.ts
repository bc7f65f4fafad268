// AWS event-stream framing (application/vnd.amazon.eventstream) through the codec the AWS SDK
// and @ai-sdk/amazon-bedrock decode with (@smithy/eventstream-codec): prelude, headers, payload
// and both CRCs are the library's, not ours.
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** One `event` message: `:event-type` names the union member, the payload is its JSON. */
export function encodeEvent(eventType: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: {
      ':message-type': { type: 'string', value: 'event' },
      ':event-type': { type: 'string', value: eventType },
      ':content-type': { type: 'string', value: 'application/json' },
    },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

/** One `exception` message (a modeled error in the middle of a stream). */
export function encodeException(exceptionType: string, message: string): Uint8Array {
  return codec.encode({
    headers: {
      ':message-type': { type: 'string', value: 'exception' },
      ':exception-type': { type: 'string', value: exceptionType },
      ':content-type': { type: 'string', value: 'application/json' },
    },
    body: fromUtf8(JSON.stringify({ message })),
  });
}

/** Decodes every message of a complete event-stream body (for tests and recordings). */
export function decodeEvents(bytes: Uint8Array): { headers: Record<string, unknown>; payload: unknown }[] {
  const out: { headers: Record<string, unknown>; payload: unknown }[] = [];
  let offset = 0;
  while (offset + 4 <= bytes.length) {
    const total = new DataView(bytes.buffer, bytes.byteOffset + offset, 4).getUint32(0, false);
    const message = codec.decode(bytes.subarray(offset, offset + total));
    const headers = Object.fromEntries(Object.entries(message.headers).map(([k, v]) => [k, v.value]));
    out.push({ headers, payload: JSON.parse(toUtf8(message.body) || 'null') as unknown });
    offset += total;
  }
  return out;
}
