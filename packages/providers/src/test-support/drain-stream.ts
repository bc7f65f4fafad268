import type { LLMStreamEvent } from '@nanobot/schema';

/** Reads a stream to its end, keeping every event and the error it ended with (tests inspect both). */
export async function drainStream(stream: AsyncIterable<LLMStreamEvent>): Promise<{ events: LLMStreamEvent[]; error?: unknown }> {
  const events: LLMStreamEvent[] = [];
  try {
    for await (const e of stream) events.push(e);
  } catch (error) {
    return { events, error };
  }
  return { events };
}
