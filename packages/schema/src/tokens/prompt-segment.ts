/**
 * One message's share of the prompt payload, reduced to what joining it needs: the text
 * before its first and after its last sync point (re-tokenised with the neighbours) and the
 * count of everything between. The full text is not kept: a history's segments live as long
 * as its messages, and the text is often a joined copy the message does not hold itself.
 */
export interface PromptSegment {
  /** UTF-8 length of the whole text (the byte-heuristic fallback needs only this). */
  readonly bytes: number;
  /** The text starts with a non-whitespace character: the joining "\n" before it is a sync point. */
  readonly startsNonWs: boolean;
  /** The text has a sync point strictly inside it. */
  readonly synced: boolean;
  /** Text before the first interior sync point ("" when not `synced`). */
  readonly head: string;
  /** Text after the last interior sync point, or the whole text when not `synced`. */
  readonly tail: string;
  /** Text between the first and last sync point, kept only until it is counted. */
  interior: string | null;
  /** Lazily computed counts (`undefined` until first needed); `null` means refused. */
  interiorCount: number | null | undefined;
  headCount: number | null | undefined;
  /** Counts of `tail` and of `tail + "\n"`. */
  endCount: number | null | undefined;
  endNlCount: number | null | undefined;
}
