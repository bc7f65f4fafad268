import type { LLMResponse, Message } from '@nanobot/schema';
import { lengthRecoveryMessage } from '../../runner-texts.js';

/** Continuations asked for in one turn before a cut answer is taken as it is. */
export const MAX_LENGTH_SEGMENTS = 3;
/** How much of the cut text the continuation prompt quotes (code points). */
const LENGTH_TAIL_CHARS = 64;

function lastChars(text: string, n: number): string {
  const chars = Array.from(text);
  return chars.slice(Math.max(0, chars.length - n)).join('');
}

/**
 * The length-continuation rule: an answer cut off by the reply limit (`finish_reason: length`)
 * is kept as a segment and the model is asked to continue from its last characters, up to
 * {@link MAX_LENGTH_SEGMENTS} times a turn (the segments are joined into the final text). Returns
 * the segment and the two rows to append, or null when the rule does not apply. Pure.
 */
export function lengthContinuation(response: LLMResponse, segments: number): { segment: string; rows: readonly Message[] } | null {
  if (response.finishReason !== 'length' || segments >= MAX_LENGTH_SEGMENTS) return null;
  const segment = response.content ?? '';
  return {
    segment,
    rows: [
      { role: 'assistant', content: segment },
      { role: 'user', content: lengthRecoveryMessage(lastChars(segment, LENGTH_TAIL_CHARS)) },
    ],
  };
}

/** The final text of a turn whose answer came after `segments` cut-off parts. Pure. */
export function joinSegments(segments: readonly string[], answer: string): string {
  return segments.length > 0 ? (segments.join('') + answer).trim() : answer;
}
