/**
 * A progress or status event a tool reports while it runs. `type` is free-form; `progress` is the
 * one the runner and apps display. The registry stamps `tool` and `toolCallId` on the way out.
 */
export interface ToolEvent {
  type: 'progress' | (string & {});
  message?: string;
  /** Work done so far and the total, when the tool knows them. */
  progress?: number;
  total?: number;
  data?: unknown;
  tool?: string;
  toolCallId?: string;
}

/**
 * Receives {@link ToolEvent}s. Called synchronously and never awaited; it must not throw (the
 * registry's wrapper swallows what it throws so a broken sink cannot fail a tool) and must not
 * mutate the event.
 */
export type ToolEventSink = (event: ToolEvent) => void;

/**
 * Everything a tool learns about the request it serves, passed to every `execute` call. Tools
 * never store it: two sessions may run the same tool instance at the same time, and each call sees
 * only its own context (the reference's `set_context` fields could cross-deliver).
 */
export interface ToolContext {
  /** Session this call belongs to, e.g. `telegram:42` or `cli:direct`. */
  readonly sessionKey: string;
  /** Channel the request came from (`cli`, `telegram`, …); replies go back there. */
  readonly channel: string;
  /** Chat within the channel. */
  readonly chatId: string;
  /** Who sent the message, when the channel says. */
  readonly senderId: string | undefined;
  /** Inbound message id, when the channel has one. */
  readonly messageId: string | undefined;
  /** Effective workspace directory for this request. */
  readonly workspace: string;
  /** Aborted when the caller gives up on the call (cancellation or the registry's timeout). */
  readonly signal: AbortSignal;
  /** Progress sink; see {@link ToolEventSink}. */
  readonly emit: ToolEventSink;
  /** Id of the model's tool call being served, when there is one. */
  readonly toolCallId: string | undefined;
  /** Free-form per-request data (model runtime, turn id, inbound metadata…). */
  readonly attributes: Readonly<Record<string, unknown>>;
}

/** Fields accepted by {@link createToolContext}; all optional. */
export type ToolContextInit = Partial<ToolContext>;

const NEVER_ABORTED = new AbortController().signal;
const NO_EVENTS: ToolEventSink = () => {};

/**
 * The process's working directory where there is one (Node, Bun, Deno, Workers with
 * nodejs_compat), else `/`: Workers without nodejs_compat, edge functions and browsers have no
 * `process.cwd`, and a context must still be buildable there.
 */
function currentDirectory(): string {
  const cwd = (globalThis as { process?: { cwd?: unknown } }).process?.cwd;
  return typeof cwd === 'function' ? String(cwd.call(globalThis.process)) : '/';
}

/**
 * Builds a frozen {@link ToolContext} with defaults for what is not given: channel `cli`, chat
 * `direct`, session key `<channel>:<chatId>`, the process's working directory as workspace (`/`
 * in runtimes without one), a signal that never aborts and a sink that drops events. Handy for
 * using tools without a runner.
 */
export function createToolContext(init: ToolContextInit = {}): ToolContext {
  const channel = init.channel ?? 'cli';
  const chatId = init.chatId ?? 'direct';
  return Object.freeze({
    sessionKey: init.sessionKey ?? `${channel}:${chatId}`,
    channel,
    chatId,
    senderId: init.senderId,
    messageId: init.messageId,
    workspace: init.workspace ?? currentDirectory(),
    signal: init.signal ?? NEVER_ABORTED,
    emit: init.emit ?? NO_EVENTS,
    toolCallId: init.toolCallId,
    attributes: Object.freeze({ ...(init.attributes ?? {}) }),
  });
}
