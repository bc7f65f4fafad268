/** The largest reply reserve taken from a model's facts (tokens). */
export const REPLY_RESERVE_CAP = 16_384;

/**
 * The reply reserve a run governs with when the model's facts size it: the model's largest
 * reply, at most 16 384 tokens and at most a quarter of the window. Why not the whole maximum:
 * the reserve comes off the input budget (a 128K-reply model would give up 128K of history for
 * replies that rarely pass a few thousand tokens). Requests keep asking what they asked
 * before (the run's `maxTokens`, else the provider's default). Pure.
 */
export function replyReserveFor(contextWindow: number, maxOutput: number | undefined): number {
  return Math.max(1, Math.min(maxOutput ?? REPLY_RESERVE_CAP, REPLY_RESERVE_CAP, Math.floor(contextWindow / 4)));
}
