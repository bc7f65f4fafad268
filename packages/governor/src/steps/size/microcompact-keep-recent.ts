import { codePointLength, type Message, pythonStr, pythonTruthy } from '@nanobot/schema';
import { MICROCOMPACT_KEEP_RECENT, MICROCOMPACT_MIN_CHARS } from '../../constants.js';
import { toolNames } from '../../report/reported-message.js';
import type { DerivationCache } from '../derivation-cache.js';
import { defineStep } from '../step.js';
import { compacted as compactedCopy } from './compact-inflight-overflow.js';
import { isCompactable, REFERENCE_RULES, toolResultRules, type ToolResultRules } from './tool-rules.js';

/** Options of {@link microcompactKeepRecent}. */
export interface MicrocompactKeepRecentOptions {
  /** How many of the newest compactable results stay intact (default 10). */
  keepRecent?: number;
  /** Results shorter than this many characters are never compacted (default 500). */
  minChars?: number;
  /** Where the compacted copies are kept (the same copy for the same result on the next call). */
  derive?: DerivationCache;
  /** Which tools are compactable and the note's wording (default: the reference's, by name). */
  rules?: ToolResultRules;
}

/**
 * The reference's older microcompaction (before pressure gating): every compactable result
 * (`read_file`, `exec`, `grep`, … of at least `minChars` characters) except the `keepRecent`
 * newest is replaced by the compaction note, on every request and whatever the budget. Off by
 * default in {@link govern}; deterministic, so the prefix stays stable between requests. Pure.
 */
export function microcompactKeepRecent(messages: readonly Message[], options: MicrocompactKeepRecentOptions = {}): { messages: Message[]; compacted: string[] } {
  const keep = Math.max(0, options.keepRecent ?? MICROCOMPACT_KEEP_RECENT);
  const minChars = options.minChars ?? MICROCOMPACT_MIN_CHARS;
  const rules = options.rules ?? REFERENCE_RULES;
  const candidates: number[] = [];
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    if (msg.role !== 'tool' || !isCompactable(rules, msg.name)) continue;
    if (typeof msg.content !== 'string' || codePointLength(msg.content) < minChars) continue;
    candidates.push(i);
  }
  const victims = candidates.slice(0, Math.max(0, candidates.length - keep));
  if (victims.length === 0) return { messages: messages as Message[], compacted: [] };
  const out = messages.slice();
  const compacted: string[] = [];
  for (const i of victims) {
    const msg = messages[i];
    out[i] = compactedCopy(msg, options.derive, rules);
    const id = (msg as { tool_call_id?: unknown }).tool_call_id;
    compacted.push(pythonTruthy(id) ? pythonStr(id) : `tool_${i}`);
  }
  return { messages: out, compacted };
}

/** The step (opt-in, `keepRecentCompactableResults`): only the newest compactable results kept whole. */
export const microcompactKeepRecentStep = defineStep({
  name: 'microcompactKeepRecent',
  may: ['rewrite'],
  noopOnClean: false,
  keepsClean: true,
  runs: (ctx) => ctx.options.keepRecentCompactableResults !== undefined && ctx.options.keepRecentCompactableResults !== null,
  run: (list, ctx) => {
    const mc = microcompactKeepRecent(list, { keepRecent: ctx.options.keepRecentCompactableResults!, derive: ctx.derive, rules: toolResultRules(ctx.options) });
    const name = toolNames(mc.messages, mc.compacted);
    return { messages: mc.messages, toolResults: mc.compacted.map((id) => ({ toolCallId: id, name: name(id), action: 'compacted' as const })) };
  },
});
