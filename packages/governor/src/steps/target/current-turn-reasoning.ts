// Rules of one model behind a target that depend on where a turn sits: the current turn (after
// the last user message) or an earlier one. Read from the target's profile with the `model`
// option: OpenRouter's Gemini 3 and Claude-with-reasoning want every current-turn step back with
// the reasoning they produced (a step another model made has none: it goes as plain text), and
// deepseek-reasoner takes no reasoning of earlier turns.
import type { ContentPart, Message } from '@nanobot/schema';
import type { ReportedMessage } from '../../report/govern-report.js';
import { ref } from '../../report/reported-message.js';
import { NO_CACHE, type DerivationCache } from '../derivation-cache.js';
import { defineStep } from '../step.js';
import type { CurrentTurnReasoningRule, TargetBehaviour } from './target-profile.js';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The profile's current-turn rule for `model`, if any. */
export function currentTurnRuleFor(profile: TargetBehaviour | null, model: unknown): CurrentTurnReasoningRule | undefined {
  if (typeof model !== 'string' || profile?.currentTurnReasoning === undefined) return undefined;
  return profile.currentTurnReasoning.find((r) => r.model.test(model));
}

/** Whether the profile removes earlier reasoning for `model`. */
export function removesEarlierReasoning(profile: TargetBehaviour | null, model: unknown): boolean {
  return typeof model === 'string' && profile?.earlierReasoningRemovedFor !== undefined && profile.earlierReasoningRemovedFor.test(model);
}

/** Whether an assistant step carries what `rule` asks of it (its producer's reasoning). */
export function carriesOwnReasoning(msg: Message, rule: CurrentTurnReasoningRule): boolean {
  const details = (msg as Rec).reasoning_details;
  if (!Array.isArray(details)) return false;
  if (rule.needs === 'call-signature') {
    const first = Array.isArray(msg.tool_calls) ? (msg.tool_calls[0] as { id?: unknown } | undefined) : undefined;
    return first !== undefined && details.some((d) => isRec(d) && d.type === 'reasoning.encrypted' && d.id === first.id);
  }
  return details.some((d) => isRec(d) && ((d.type === 'reasoning.text' && typeof d.signature === 'string' && d.signature !== '') || d.type === 'reasoning.encrypted'));
}

const hasCalls = (m: Message): boolean => m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0;

function lastUserIndex(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user') return i;
  return -1;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (isRec(p) && typeof p.text === 'string' ? p.text : isRec(p) && typeof p.type === 'string' && p.type.includes('image') ? '[image]' : '')).filter((t) => t.trim() !== '').join('\n');
}

/** The step's calls as an assistant note (its text first). */
function stepAsText(msg: Message): Message {
  const lines = (msg.tool_calls ?? []).map((c) => `[called ${String(c?.function?.name ?? 'tool')} with ${String(c?.function?.arguments ?? '{}')} (call ${String(c?.id ?? '')})]`);
  const text = textOf(msg.content);
  return { role: 'assistant', content: [text, ...lines].filter((t) => t.trim() !== '').join('\n') };
}

/** The step's results as one user note. */
function resultsAsText(results: readonly Message[]): Message {
  const parts = results.map((r) => `[${String(r.name ?? 'tool')} result (call ${String(r.tool_call_id ?? '')})]\n${textOf(r.content) || '(no output)'}`);
  return { role: 'user', content: parts.join('\n\n') };
}

/** What {@link currentTurnReasoning} produced. */
export interface CurrentTurnReasoningResult {
  messages: Message[];
  removed: ReportedMessage[];
  added: ReportedMessage[];
}

function withoutEarlierReasoning(m: Message): Message | null {
  const rec = m as Message & Rec;
  const parts = Array.isArray(m.content) ? (m.content as ContentPart[]) : null;
  const kept = parts?.filter((p) => !(isRec(p) && p.type === 'reasoning'));
  const partsChange = parts !== null && kept !== undefined && kept.length !== parts.length && (kept.length > 0 || hasCalls(m));
  if (typeof rec.reasoning_content !== 'string' && !partsChange) return null;
  const out = { ...rec };
  delete out.reasoning_content;
  if (partsChange) out.content = kept!.length > 0 ? kept! : null;
  return out;
}

/**
 * Applies the model's current-turn rules of `profile` (see {@link CurrentTurnReasoningRule} and
 * `earlierReasoningRemovedFor`). Pure: the same array when nothing changes; with a cache, a
 * rewritten message is the same object on every call.
 */
export function currentTurnReasoning(messages: readonly Message[], profile: TargetBehaviour, model: string, derive: DerivationCache = NO_CACHE): CurrentTurnReasoningResult {
  const lastUser = lastUserIndex(messages);
  const removed: ReportedMessage[] = [];
  const added: ReportedMessage[] = [];
  let out: Message[] | null = null;
  if (removesEarlierReasoning(profile, model)) {
    for (let i = 0; i < lastUser; i++) {
      const m = messages[i];
      if (m.role !== 'assistant') continue;
      const next = derive.derive(m, 'earlier-reasoning-removed', () => withoutEarlierReasoning(m));
      if (next === null) continue;
      out ??= messages.slice();
      out[i] = next;
      removed.push(ref(m, i, 'earlier-reasoning-removed'));
      added.push(ref(next, i, 'earlier-reasoning-removed'));
    }
  }
  const rule = currentTurnRuleFor(profile, model);
  if (rule === undefined) return { messages: out ?? (messages as Message[]), removed, added };
  let rebuilt: Message[] | null = null;
  const base = out ?? (messages as Message[]);
  for (let i = lastUser + 1; i < base.length; i++) {
    const m = base[i];
    if (!hasCalls(m) || carriesOwnReasoning(m, rule)) {
      rebuilt?.push(m);
      continue;
    }
    let j = i + 1;
    while (j < base.length && base[j].role === 'tool') j++;
    rebuilt ??= base.slice(0, i);
    const note = derive.derive(m, 'current-turn-step-as-text', () => stepAsText(m));
    removed.push(ref(m, i, 'current-turn-steps-as-text'));
    added.push(ref(note, rebuilt.length, 'current-turn-steps-as-text'));
    rebuilt.push(note);
    if (j > i + 1) {
      const results = base.slice(i + 1, j);
      results.forEach((r, k) => removed.push(ref(r, i + 1 + k, 'current-turn-steps-as-text')));
      const user = resultsAsText(results);
      added.push(ref(user, rebuilt.length, 'current-turn-steps-as-text'));
      rebuilt.push(user);
    }
    i = j - 1;
  }
  return { messages: rebuilt ?? base, removed, added };
}

/** The step (a profile rule for the `model` option: OpenRouter's Gemini 3 and Claude thinking, deepseek-reasoner). */
export const currentTurnReasoningStep = defineStep({
  name: 'currentTurnReasoning',
  may: ['drop', 'insert', 'rewrite'],
  noopOnClean: false,
  keepsClean: true,
  runs: (ctx) => currentTurnRuleFor(ctx.profile, ctx.options.model) !== undefined || removesEarlierReasoning(ctx.profile, ctx.options.model),
  run: (list, ctx) => {
    const r = currentTurnReasoning(list, ctx.profile!, ctx.options.model!, ctx.derive);
    return r.messages === list ? { messages: r.messages } : r;
  },
});
