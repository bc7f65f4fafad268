import type { ContentPart, Message } from '@nanobot/schema';

/**
 * Part types chat completions takes in a `user` message but not in a `tool` message (tool
 * content is a string or text parts only; OpenAI answers 400 to an image there).
 */
const ATTACHMENT_KINDS: Readonly<Record<string, string>> = { image_url: 'image', input_audio: 'audio', file: 'file' };

/** Model-visible text left in the tool result where an attachment was taken out. */
export function toolAttachmentPlaceholder(kind: string): string {
  return `[${kind}: attached to the next user message]`;
}

/** Model-visible text that introduces one tool result's attachments in the user message. */
export function toolAttachmentLabel(toolCallId: unknown, name: unknown): string {
  const id = typeof toolCallId === 'string' && toolCallId !== '' ? toolCallId : '?';
  return typeof name === 'string' && name !== '' ? `Attachments from the ${name} tool result (${id}):` : `Attachments from tool result ${id}:`;
}

function attachmentKind(part: unknown): string | undefined {
  if (typeof part !== 'object' || part === null) return undefined;
  const type = (part as { type?: unknown }).type;
  return typeof type === 'string' && Object.hasOwn(ATTACHMENT_KINDS, type) ? ATTACHMENT_KINDS[type] : undefined;
}

/** The tool message as text with placeholders, and the parts taken out of it (none: unchanged). */
function splitToolMessage(message: Message): { tool: Message; moved: ContentPart[] } {
  const content = message.content;
  if (message.role !== 'tool' || !Array.isArray(content) || !content.some((p) => attachmentKind(p) !== undefined)) return { tool: message, moved: [] };
  const moved: ContentPart[] = [];
  const lines: string[] = [];
  for (const part of content) {
    const kind = attachmentKind(part);
    if (kind !== undefined) {
      moved.push(part);
      lines.push(toolAttachmentPlaceholder(kind));
    } else if (part.type === 'text' && typeof part.text === 'string') {
      lines.push(part.text);
    } else {
      // Anything else is neither an attachment nor text; keep it readable rather than drop it.
      lines.push(JSON.stringify(part));
    }
  }
  // A string is what every OpenAI-compatible server takes in a tool message.
  return { tool: { ...message, content: lines.join('\n') }, moved };
}

/**
 * Takes images (and audio/file parts) out of `tool` messages for chat completions, on a copy:
 * each such tool result keeps its text, with a placeholder where an attachment was, and the
 * attachments go into one `user` message inserted right after the contiguous block of tool
 * results, so results still directly follow their assistant turn. That user message has a label
 * per tool result; role alternation then merges it with a following user turn. Returns the input
 * array itself when no tool message has attachments.
 */
export function moveToolAttachmentsToUser(messages: readonly Message[]): Message[] {
  if (!messages.some((m) => m.role === 'tool' && Array.isArray(m.content))) return messages as Message[];
  const out: Message[] = [];
  let pending: ContentPart[] = [];
  let changed = false;
  const flush = () => {
    if (pending.length === 0) return;
    out.push({ role: 'user', content: pending });
    pending = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') flush();
    const { tool, moved } = splitToolMessage(message);
    if (moved.length > 0) {
      changed = true;
      pending.push({ type: 'text', text: toolAttachmentLabel(message.tool_call_id, message.name) }, ...moved);
    }
    out.push(tool);
  }
  flush();
  return changed ? out : (messages as Message[]);
}
