import type { LLMProvider, LLMResponse, Message, TokenCounter, ToolDefinition } from '@nanobot/schema';
import type { ContextBuilder } from '@nanobot/context-builder';
import { estimateMessageTokens, estimatePromptTokensChain } from '@nanobot/schema';
import { consolidatorArchivePrompt } from './consolidator-prompt.js';
import { getHistory } from './get-history.js';
import { KeyedMutex } from './keyed-mutex.js';
import type { MemoryStore } from './memory-store.js';
import type { Session } from './session.js';
import type { SessionStore } from './session-store.js';

/** Tokens kept free besides the generation budget. */
export const CONSOLIDATION_SAFETY_BUFFER = 1024;
/** Archive rounds per consolidation call. */
export const MAX_CONSOLIDATION_ROUNDS = 5;
/** Cap of one summary entry (characters). */
export const SUMMARY_MAX_CHARS = 8000;
/** The placeholder current message of the token probe. */
export const TOKEN_PROBE_MESSAGE = '[token-probe]';
const NOTHING = '(nothing)';

/** What the consolidator asks the prompt builder for. */
export interface ConsolidationPromptInput {
  session: Session;
  history: Message[];
  currentMessage: string;
  /** The session's stored archived summary, if any. */
  sessionSummary: { text: string; lastActive: string } | null;
}

/** Options of {@link Consolidator}. */
export interface ConsolidatorOptions {
  provider: LLMProvider;
  store: SessionStore;
  memory: MemoryStore;
  contextWindowTokens: number;
  /** The generation budget (`max_tokens`) of the main model. */
  maxTokens: number;
  /** Fraction of the input budget to shrink to once triggered (0.1–0.95, default 0.5). */
  ratio?: number;
  model?: string;
  temperature?: number;
  reasoningEffort?: string | null;
  /**
   * Builds the full request for a current message, normally `ContextBuilder.buildMessages`
   * with the same system prompt as the main agent (prompt-cache friendly). Awaited; may throw
   * (the error propagates: it is a configuration problem); must not mutate its input.
   * Default: `contextBuilder` when given, else a bare `[...history, user]` list.
   */
  buildMessages?: (input: ConsolidationPromptInput) => Message[] | Promise<Message[]>;
  /**
   * The agent's context builder: when `buildMessages` is not given, requests are built with its
   * `buildMessages(history, current, { sessionKey, sessionSummary, channel })` (channel = the
   * key's prefix before `:`), so probes and archive requests carry the real system prompt.
   */
  contextBuilder?: Pick<ContextBuilder, 'buildMessages'>;
  /** Tool definitions sent with (and counted in) the request. */
  tools?: readonly ToolDefinition[] | (() => readonly ToolDefinition[]);
  /** Exact token counter; defaults to the provider's. */
  tokenCounter?: TokenCounter | null;
}

/** What one consolidation call did. */
export interface ConsolidationReport {
  triggered: boolean;
  budget: number;
  target: number;
  estimateBefore: number;
  estimateAfter: number;
  rounds: { start: number; end: number; outcome: 'summary' | 'nothing' | 'raw' | 'empty' }[];
}

function sessionSummaryOf(session: Session): { text: string; lastActive: string } | null {
  const stored = session.metadata._last_summary as { text?: unknown; last_active?: unknown } | undefined;
  if (!stored || typeof stored.text !== 'string' || stored.text === '') return null;
  return { text: stored.text, lastActive: typeof stored.last_active === 'string' ? stored.last_active : '' };
}

/**
 * Token-triggered archiving. When the estimated prompt (system prompt, full replayable history,
 * a probe message and the tools) reaches the input budget, the oldest turns are summarised by
 * the model into `memory/history.jsonl` and `lastConsolidated` advances past them, in up to five
 * rounds, until the estimate is at `ratio` of the budget. If the model fails, the turns are
 * stored as a raw archive entry instead (the pointer still advances, as in the reference).
 */
export class Consolidator {
  private readonly options: ConsolidatorOptions;
  private readonly ratio: number;
  private readonly locks = new KeyedMutex();

  constructor(options: ConsolidatorOptions) {
    this.options = options;
    this.ratio = Math.min(0.95, Math.max(0.1, options.ratio ?? 0.5));
  }

  /** `contextWindowTokens − maxTokens − 1024`. */
  get inputBudget(): number {
    return this.options.contextWindowTokens - this.options.maxTokens - CONSOLIDATION_SAFETY_BUFFER;
  }

  private tools(): readonly ToolDefinition[] {
    const tools = this.options.tools;
    return typeof tools === 'function' ? tools() : (tools ?? []);
  }

  private async build(input: ConsolidationPromptInput): Promise<Message[]> {
    if (this.options.buildMessages) return this.options.buildMessages(input);
    if (this.options.contextBuilder) {
      const colon = input.session.key.indexOf(':');
      return this.options.contextBuilder.buildMessages(input.history, input.currentMessage, {
        sessionKey: input.session.key,
        sessionSummary: input.sessionSummary,
        channel: colon > 0 ? input.session.key.slice(0, colon) : null,
      });
    }
    return [...input.history, { role: 'user', content: input.currentMessage }];
  }

  private estimate(messages: readonly Message[]): number {
    const counter = this.options.tokenCounter === undefined ? this.options.provider.tokenCounter : this.options.tokenCounter;
    return estimatePromptTokensChain(counter ?? null, messages, this.tools())[0];
  }

  /** The probe estimate of the session's next prompt. */
  async estimateSessionPrompt(session: Session): Promise<number> {
    const messages = await this.build({
      session,
      history: session.getHistory(),
      currentMessage: TOKEN_PROBE_MESSAGE,
      sessionSummary: sessionSummaryOf(session),
    });
    return this.estimate(messages);
  }

  /**
   * Index just after the oldest run of whole turns (from `lastConsolidated`) whose tokens reach
   * `tokensToRemove`; the last user boundary seen when none does; null when there is none.
   */
  pickBoundary(session: Session, tokensToRemove: number): number | null {
    const start = session.lastConsolidated;
    const need = Math.max(1, tokensToRemove);
    let total = 0;
    let last: number | null = null;
    for (let i = start; i < session.messages.length; i += 1) {
      const message = session.messages[i];
      if (i > start && message.role === 'user') {
        last = i;
        if (total >= need) return i;
      }
      total += estimateMessageTokens(message);
    }
    return last;
  }

  /**
   * Summarises `messages[lastConsolidated:end]` into history.jsonl. Returns the summary,
   * `(nothing)`, or null when it fell back to a raw archive (or there was nothing to archive).
   * Does not move the pointer.
   */
  async archiveSession(session: Session, end: number): Promise<{ summary: string | null; outcome: 'summary' | 'nothing' | 'raw' | 'empty' }> {
    const { memory, provider } = this.options;
    const chunk = session.messages.slice(session.lastConsolidated, end);
    if (chunk.length === 0) return { summary: null, outcome: 'empty' };
    const raw = async (): Promise<{ summary: null; outcome: 'raw' }> => {
      await memory.rawArchive(chunk, session.key);
      return { summary: null, outcome: 'raw' };
    };
    const budget = this.inputBudget;
    if (budget <= 0) return raw();
    const history = getHistory({ messages: session.messages.slice(0, end), lastConsolidated: session.lastConsolidated }, { maxTokens: budget });
    const chunkReplay = getHistory({ messages: chunk, lastConsolidated: 0 });
    if (chunkReplay.length === 0) return { summary: null, outcome: 'empty' };
    const tail = history.slice(history.length - chunkReplay.length);
    if (history.length < chunkReplay.length || JSON.stringify(tail) !== JSON.stringify(chunkReplay)) return raw();
    const request = await this.build({
      session,
      history,
      currentMessage: consolidatorArchivePrompt(chunkReplay.length),
      sessionSummary: sessionSummaryOf(session),
    });
    if (this.estimate(request) > budget) return raw();
    let response: LLMResponse;
    try {
      response = await provider.chat({
        messages: request,
        tools: this.tools(),
        toolChoice: 'none',
        model: this.options.model,
        maxTokens: this.options.maxTokens,
        temperature: this.options.temperature,
        reasoningEffort: this.options.reasoningEffort,
      });
    } catch {
      return raw();
    }
    const text = (response.content ?? '').trim();
    if (response.finishReason === 'error' || response.finishReason === 'length' || response.toolCalls.length > 0 || text === '') {
      return raw();
    }
    if (text === NOTHING) return { summary: NOTHING, outcome: 'nothing' };
    await memory.appendHistory(text, { maxChars: SUMMARY_MAX_CHARS, sessionKey: session.key });
    return { summary: text, outcome: 'summary' };
  }

  /**
   * Archives old turns when the prompt estimate has reached the input budget (see the class
   * doc). Saves the session after each round. Calls for the same session key are serialised.
   */
  async maybeConsolidateByTokens(session: Session): Promise<ConsolidationReport> {
    return this.locks.run(session.key, async () => {
      const budget = this.inputBudget;
      const target = Math.floor(budget * this.ratio);
      const report: ConsolidationReport = { triggered: false, budget, target, estimateBefore: 0, estimateAfter: 0, rounds: [] };
      if (this.options.contextWindowTokens <= 0) return report;
      let estimate = await this.estimateSessionPrompt(session);
      report.estimateBefore = estimate;
      report.estimateAfter = estimate;
      if (estimate < budget) return report;
      report.triggered = true;
      let lastSummary: string | null = null;
      for (let round = 0; round < MAX_CONSOLIDATION_ROUNDS && estimate > target; round += 1) {
        const end = this.pickBoundary(session, estimate - target);
        if (end === null || end <= session.lastConsolidated) break;
        const start = session.lastConsolidated;
        const { summary, outcome } = await this.archiveSession(session, end);
        report.rounds.push({ start, end, outcome });
        session.lastConsolidated = end;
        session.providerState = null;
        await this.options.store.save(session);
        if (summary === null) break;
        if (summary !== NOTHING) lastSummary = summary;
        estimate = await this.estimateSessionPrompt(session);
        report.estimateAfter = estimate;
      }
      if (lastSummary !== null) {
        session.metadata = { ...session.metadata, _last_summary: { text: lastSummary, last_active: session.updatedAt } };
        await this.options.store.save(session);
      }
      return report;
    });
  }

  /**
   * Archives everything after the pointer in one call (idle sessions, `/new`): summary (or raw
   * archive) into history.jsonl, `_last_summary` stored when there is a real summary, pointer
   * advanced to the message count captured at the start (messages added meanwhile stay
   * unarchived), session saved. Returns the summary, `(nothing)`, or null.
   */
  async archiveUnconsolidated(session: Session): Promise<string | null> {
    return this.locks.run(session.key, async () => {
      const end = session.messages.length;
      if (end <= session.lastConsolidated) return null;
      const { summary } = await this.archiveSession(session, end);
      session.lastConsolidated = Math.max(session.lastConsolidated, end);
      session.providerState = null;
      if (summary !== null && summary !== NOTHING) {
        session.metadata = { ...session.metadata, _last_summary: { text: summary, last_active: session.updatedAt } };
      }
      await this.options.store.save(session);
      return summary;
    });
  }
}
