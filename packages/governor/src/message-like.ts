/**
 * The least the governor needs of a message: an object with a role. `Message` from
 * `@nanobot/schema`, the openai SDK's `ChatCompletionMessageParam` and any OpenAI-chat-shaped
 * type of your own satisfy it, so {@link govern} and {@link checkLegality} take your messages as
 * they are and give back the same type (no casts).
 */
export interface MessageLike {
  readonly role: string;
}
