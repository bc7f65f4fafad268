/** Options of the prompt estimates ({@link estimatePromptTokensWithSource}, {@link estimatePromptTokensChain}). */
export interface PromptEstimateOptions {
  /**
   * Treat messages as values: a history estimated before is recognised by its message objects
   * alone, without re-reading each one's fields. Much cheaper on long histories (whose objects
   * no longer fit in the CPU caches), but a field replaced in place on a message already
   * estimated (`msg.content = …`) is then not seen; pass a new object instead. Default false.
   */
  sameObjectsSameValues?: boolean;
}
