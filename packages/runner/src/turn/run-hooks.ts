import type { Message } from '@nanobot/schema';
import type { RunnerHooks } from '../runner-hooks.js';
import type { CheckpointPayload } from '../run-spec.js';
import { HookFailure, describeError, type RunState } from './run-state.js';

const MAX_INJECTIONS_PER_DRAIN = 3;
const MAX_INJECTION_CYCLES = 5;

function hookList(state: RunState): readonly RunnerHooks[] {
  const hooks = state.spec.hooks;
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks as RunnerHooks];
}

/**
 * Calls one hook on every `RunnerHooks` of the run, in order, awaiting each; returns the last
 * value one of them gave. A throwing critical hook ends the run (`HookFailure`); any other
 * throw is reported as a `hook_error` event.
 */
export async function callHooks(state: RunState, name: string, call: (hook: RunnerHooks) => unknown): Promise<unknown> {
  let last: unknown = undefined;
  for (const hook of hookList(state)) {
    try {
      const value = await call(hook);
      if (value !== undefined) last = value;
    } catch (error) {
      if (hook.critical) throw new HookFailure(name, error);
      state.emit({ ...state.base(), type: 'hook_error', hook: name, error: describeError(error) });
    }
  }
  return last;
}

/** The answer text after every `finalizeContent` hook (same failure rules as {@link callHooks}). */
export async function finalizeContent(state: RunState, content: string): Promise<string> {
  let value = content;
  for (const hook of hookList(state)) {
    if (!hook.finalizeContent) continue;
    try {
      value = await hook.finalizeContent(value);
    } catch (error) {
      if (hook.critical) throw new HookFailure('finalizeContent', error);
      state.emit({ ...state.base(), type: 'hook_error', hook: 'finalizeContent', error: describeError(error) });
    }
  }
  return value;
}

/** Hands in-flight state to the spec's `checkpoint` (awaited; a throw is a `hook_error`). */
export async function checkpoint(state: RunState, payload: Omit<CheckpointPayload, 'transcript' | 'appendedFrom'>): Promise<void> {
  if (!state.spec.checkpoint) return;
  try {
    await state.spec.checkpoint({ ...payload, transcript: state.transcript, appendedFrom: state.spec.initialMessages.length });
  } catch (error) {
    state.emit({ ...state.base(), type: 'hook_error', hook: 'checkpoint', error: describeError(error) });
  }
}

function userContentNonEmpty(message: Message): boolean {
  const content = message.content;
  if (typeof content === 'string') return content.trim() !== '';
  return Array.isArray(content) && content.length > 0;
}

/**
 * Appends pending user input (the spec's `injections`, at most 3 per drain and 5 drains per run);
 * returns whether any was appended, i.e. whether the turn goes on.
 */
export async function drainInjections(state: RunState): Promise<boolean> {
  const source = state.spec.injections;
  if (!source || state.injectionCycles >= MAX_INJECTION_CYCLES || state.signal.aborted) return false;
  let items: readonly Message[];
  try {
    items = await source(MAX_INJECTIONS_PER_DRAIN);
  } catch (error) {
    state.emit({ ...state.base(), type: 'hook_error', hook: 'injections', error: describeError(error) });
    return false;
  }
  const kept = items.filter((m) => m && typeof m === 'object' && userContentNonEmpty(m)).slice(0, MAX_INJECTIONS_PER_DRAIN);
  if (kept.length === 0) return false;
  state.injectionCycles += 1;
  state.hadInjections = true;
  // Appended, never merged into an earlier user row: that row may already be persisted, and
  // consecutive user rows are legal (the governor's role alternation merges them in the copy).
  for (const message of kept) state.append({ ...message, role: message.role ?? 'user' });
  return true;
}
