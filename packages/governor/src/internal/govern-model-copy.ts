// The pipeline every dialect runs on its model copy: `govern`, then the rules the copy must
// meet before it is converted back (no empty content, strict role alternation), each recorded
// as a step of the same report.
import type { Message } from '@nanobot/schema';
import { enforceRoleAlternation } from '../enforce-role-alternation.js';
import { govern, type GovernOptions, type GovernResult } from '../govern.js';
import type { GovernStepName, GovernStepReport, ReportedMessage } from '../govern-report.js';
import { promptTokens } from './estimate.js';
import { tidyEmptyContent } from './tidy-empty-content.js';

function ref(msg: Message, index: number): ReportedMessage {
  const out: ReportedMessage = { index, role: String(msg.role) };
  if (typeof msg.content === 'string') out.preview = msg.content.slice(0, 80);
  return out;
}

function diff(before: readonly Message[], after: readonly Message[]): { removed: ReportedMessage[]; added: ReportedMessage[] } {
  const inAfter = new Set(after);
  const inBefore = new Set(before);
  const removed: ReportedMessage[] = [];
  const added: ReportedMessage[] = [];
  before.forEach((m, i) => { if (!inAfter.has(m)) removed.push(ref(m, i)); });
  after.forEach((m, i) => { if (!inBefore.has(m)) added.push(ref(m, i)); });
  return { removed, added };
}

/**
 * `govern(model, options)` followed by {@link tidyEmptyContent} and
 * {@link enforceRoleAlternation}, so the copy is legal for OpenAI and Anthropic alike.
 * Throws what `govern` throws (invalid options).
 */
export function governModelCopy(model: readonly Message[], options: GovernOptions): GovernResult {
  const { messages, report } = govern(model, options);
  let current = messages;
  const ctx = { tools: options.tools ?? null, tokenCounter: options.tokenCounter ?? null };
  const withTokens = report.tokensAfter !== undefined;
  let tokens = report.tokensAfter;
  const record = (step: GovernStepName, next: Message[], removed: ReportedMessage[], added: ReportedMessage[]): void => {
    const changed = next !== current;
    const entry: GovernStepReport = {
      step, pass: 1, changed, messagesBefore: current.length, messagesAfter: next.length, removed, added, toolResults: [],
    };
    if (withTokens && tokens !== undefined) {
      entry.tokensBefore = tokens;
      if (changed) tokens = promptTokens(next, ctx);
      entry.tokensAfter = tokens;
    }
    report.steps.push(entry);
    current = next;
  };
  const tidy = tidyEmptyContent(current);
  record('tidyEmptyContent', tidy.messages, tidy.removed, tidy.added);
  const alternated = enforceRoleAlternation(current);
  const changes = alternated === current ? { removed: [], added: [] } : diff(current, alternated);
  record('enforceRoleAlternation', alternated, changes.removed, changes.added);
  report.messagesAfter = current.length;
  if (withTokens) report.tokensAfter = tokens;
  return { messages: current, report };
}
