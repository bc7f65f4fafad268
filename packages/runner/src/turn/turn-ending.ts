import type { Message } from '@nanobot/schema';
import type { StopReason } from '../runner-events.js';
import { drainInjections } from './run-hooks.js';
import type { RunState } from './run-state.js';

/**
 * How a turn ends: its stop reason and texts, the rows that close it, and what pending user
 * input (the spec's `injections`) does to it. Every ending of a turn is one of these, applied by
 * {@link endTurn}; the recovery policies build them.
 */
export interface TurnEnding {
  readonly stopReason: StopReason;
  /** The run's final text; undefined leaves it as it is. */
  readonly finalContent: string | null | undefined;
  /** The run's error; undefined leaves it as it is. */
  readonly error: string | null | undefined;
  /** Appended in order to close the turn. */
  readonly rows: readonly Message[];
  /**
   * Injected input: `final` is not asked for (the run ends); `continue` goes on as the turn is
   * (stop reason kept); `resume` goes on as a completed turn (stop reason and error cleared);
   * `next` goes on with the cut-off segments dropped (a finished answer).
   */
  readonly injected: 'final' | 'continue' | 'resume' | 'next';
}

/**
 * Applies an ending to the run; returns whether injected input continues the turn (the caller
 * then runs another iteration) or the run ends here.
 */
export async function endTurn(state: RunState, ending: TurnEnding): Promise<boolean> {
  state.stopReason = ending.stopReason;
  if (ending.error !== undefined) state.error = ending.error;
  if (ending.finalContent !== undefined) state.finalContent = ending.finalContent;
  for (const row of ending.rows) state.append(row);
  if (ending.injected === 'final' || !(await drainInjections(state))) return false;
  if (ending.injected === 'resume') {
    state.stopReason = 'completed';
    state.error = null;
  } else if (ending.injected === 'next') {
    state.lengthSegments.length = 0;
  }
  return true;
}

/** An aborted turn: the streamed text so far is kept as an interrupted answer. Pure. */
export function abortedTurn(partial: string): TurnEnding {
  const kept = partial.trim() !== '';
  return {
    stopReason: 'aborted',
    error: 'aborted',
    finalContent: kept ? partial : undefined,
    rows: kept ? [{ role: 'assistant', content: partial, _interrupted: true }] : [],
    injected: 'final',
  };
}

/** A finished answer (already appended and checkpointed by the caller). Pure. */
export function answeredTurn(finalContent: string): TurnEnding {
  return { stopReason: 'completed', finalContent, error: undefined, rows: [], injected: 'next' };
}
