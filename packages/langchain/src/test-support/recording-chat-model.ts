// A small real `BaseChatModel` (from @langchain/core) that records every message list it is
// called with and replies from a script. It binds tools (returns itself), as createAgent needs.
import type { BaseMessage } from '@langchain/core/messages';
import { AIMessage } from '@langchain/core/messages';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { ChatResult } from '@langchain/core/outputs';

/** Records calls; replies with `replies` in turn (the last one repeated). */
export class RecordingChatModel extends BaseChatModel {
  readonly calls: BaseMessage[][] = [];
  readonly boundTools: unknown[][] = [];
  private turn = 0;

  constructor(private readonly replies: AIMessage[] = [new AIMessage('done')]) {
    super({});
  }

  _llmType(): string {
    return 'recording';
  }

  override bindTools(tools: unknown[]): this {
    this.boundTools.push(tools);
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.calls.push(messages);
    const message = this.replies[Math.min(this.turn++, this.replies.length - 1)];
    return { generations: [{ message, text: typeof message.content === 'string' ? message.content : '' }] };
  }
}
