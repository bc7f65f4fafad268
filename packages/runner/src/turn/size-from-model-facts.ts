import { replyReserveFor } from '@nanobot/providers';
import { ABORTED, raceSignal } from '@nanobot/tools-core';
import type { RunState } from './run-state.js';

/**
 * Sizes the run from the model's facts when it left the window unset (see
 * `RunSettings.modelFacts`) and says where they came from. A source that rejects despite its
 * contract, or an abort, leaves the governor's defaults; nothing here fails the run.
 */
export async function sizeFromModelFacts(state: RunState): Promise<void> {
  const { spec } = state;
  const source = spec.modelFacts;
  if (!source || spec.contextWindowTokens !== undefined) return;
  const model = state.model;
  let facts;
  try {
    facts = await raceSignal(source.lookup(model, { signal: state.signal }), state.signal);
  } catch (error) {
    state.emit({ ...state.base(), type: 'model_facts', model, source: 'none', problem: `the model facts lookup failed: ${error instanceof Error ? error.message : String(error)}` });
    return;
  }
  if (facts === ABORTED) return;
  if (facts.contextWindow !== undefined) {
    state.windowTokens = facts.contextWindow;
    if (spec.maxTokens === undefined) state.replyTokens = replyReserveFor(facts.contextWindow, facts.maxOutput);
  }
  state.emit({
    ...state.base(),
    type: 'model_facts',
    model,
    source: facts.source,
    ...(facts.contextWindow !== undefined ? { contextWindow: facts.contextWindow } : {}),
    ...(facts.maxOutput !== undefined ? { maxOutput: facts.maxOutput } : {}),
    ...(facts.fetchedAt !== undefined ? { fetchedAt: facts.fetchedAt } : {}),
    ...(state.windowTokens !== undefined ? { windowTokens: state.windowTokens } : {}),
    ...(state.replyTokens !== undefined ? { replyTokens: state.replyTokens } : {}),
    ...(facts.problem !== undefined ? { problem: facts.problem } : {}),
  });
}
