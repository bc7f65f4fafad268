import type { Tool } from '@nanobot/tools-core';
import { toTool } from '../tool/to-tool.js';
import { stat } from 'node:fs/promises';
import type { BuiltinToolSpec } from '../tool/builtin-tool.js';
import { errorMessage, fail, ok } from '../tool/builtin-tool.js';
import { fileFailure } from '../files/file-failure.js';
import { resolveWorkspacePath } from '../workspace/resolve-workspace-path.js';
import { scopeFor, type WorkspaceOptions } from '../workspace/workspace-scope.js';

/** A message the `message` tool asks the host to deliver. */
export interface OutboundMessage {
  readonly channel: string;
  readonly chatId: string;
  readonly content: string;
  /** Absolute, vetted paths of files to attach. */
  readonly media: readonly string[];
  /** Rows of button labels. */
  readonly buttons: readonly (readonly string[])[];
  /** The request this message was sent from (so the host can suppress the normal reply when the target is the same chat). */
  readonly origin: { readonly sessionKey?: string; readonly channel?: string; readonly chatId?: string; readonly messageId?: string };
}

/**
 * Delivers messages for the `message` tool (the agent loop's bus, a channel adapter, a test
 * double). `send` is awaited and may throw (the model reads the failure); it receives a fresh
 * object it may keep.
 */
export interface MessageSender {
  send(message: OutboundMessage): Promise<void>;
}

/** Arguments of `message`. */
export interface MessageArgs {
  content: string;
  channel?: string;
  chat_id?: string;
  media?: string[];
  buttons?: string[][];
}

/** Options of `createMessageTool`. */
export interface MessageToolOptions extends WorkspaceOptions {
  sender: MessageSender;
}

/**
 * `message`: send text (and files/buttons) to a chat. The target defaults to the channel and
 * chat of the call's own context — never to state kept on the tool — so concurrent sessions
 * cannot cross-deliver. Media paths are confined to the workspace like the file tools.
 */
export function createMessageSpec(options: MessageToolOptions): BuiltinToolSpec<MessageArgs> {
  return {
    name: 'message',
    description:
      'Send a message to the user, optionally to another channel/chat, with file attachments (media paths) or inline ' +
      'buttons (rows of labels). Defaults to the current conversation.',
    parameters: {
      type: 'object',
      properties: {
        content: { type: 'string', description: 'Message text' },
        channel: { type: 'string', description: 'Target channel (default: the current one)' },
        chat_id: { type: 'string', description: 'Target chat (default: the current one)' },
        media: { type: 'array', items: { type: 'string' }, description: 'Paths of files to attach' },
        buttons: {
          type: 'array',
          items: { type: 'array', items: { type: 'string' } },
          description: 'Inline buttons as rows of labels',
        },
      },
      required: ['content'],
      additionalProperties: false,
    },
    readOnly: false,
    exclusive: false,
    scopes: ['core'],
    async run(args, ctx) {
      if (typeof args.content !== 'string') return fail('Error: content must be a string');
      const channel = args.channel || ctx.channel;
      const chatId = args.chat_id || ctx.chatId;
      if (!channel || !chatId) return fail('Error: No target channel/chat specified');
      const media: string[] = [];
      if (args.media && args.media.length > 0) {
        const scope = scopeFor(options, ctx.workspace);
        if (!scope) return fail('Error: message has no workspace to resolve media paths against');
        for (const p of args.media) {
          try {
            const real = await resolveWorkspacePath(scope, p, 'read');
            if (!(await stat(real)).isFile()) return fail(`Error: Not a file: ${p}`);
            media.push(real);
          } catch (error) {
            return fileFailure(error, p, 'attaching file');
          }
        }
      }
      const buttons = (args.buttons ?? []).map((row) => [...row]);
      try {
        await options.sender.send({
          channel,
          chatId,
          content: args.content,
          media,
          buttons,
          origin: {
            sessionKey: ctx.sessionKey,
            channel: ctx.channel,
            chatId: ctx.chatId,
            ...(ctx.messageId !== undefined ? { messageId: ctx.messageId } : {}),
          },
        });
      } catch (error) {
        return fail(`Error sending message: ${errorMessage(error)}`);
      }
      let text = `Message sent to ${channel}:${chatId}`;
      if (media.length > 0) text += ` with ${media.length} attachments`;
      const buttonCount = buttons.reduce((n, row) => n + row.length, 0);
      if (buttonCount > 0) text += ` with ${buttonCount} button(s)`;
      return ok(text);
    },
  };
}

/** The `message` tool, ready to register (see `createMessageSpec` for its behaviour). */
export function createMessageTool(options: MessageToolOptions): Tool<MessageArgs> {
  return toTool(createMessageSpec(options));
}
