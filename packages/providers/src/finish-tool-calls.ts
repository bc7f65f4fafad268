import type { ToolCallRequest } from '@nanobot/schema';
import { hasValidToolName } from './tool-call-request.js';
import { parseToolArguments } from './tool-arguments.js';

type Json = Record<string, any>;

/** A short random id for calls whose id is missing or repeated (9 alphanumerics, as the reference). */
export function randomCallId(): string {
  const chars = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  let id = '';
  for (let i = 0; i < 9; i++) id += chars[Math.floor(Math.random() * chars.length)];
  return id;
}

/**
 * Raw calls → `ToolCallRequest`s: arguments parsed strictly (malformed JSON stays a string the
 * registry rejects), calls without a usable name dropped, missing/repeated ids replaced.
 */
export function finishToolCalls(raw: { id?: unknown; name?: unknown; arguments?: unknown; extra?: Json }[], newId: () => string = randomCallId): ToolCallRequest[] {
  const seen = new Set<string>();
  const calls: ToolCallRequest[] = [];
  for (const call of raw) {
    if (!hasValidToolName(call)) continue;
    let id = typeof call.id === 'string' && call.id !== '' ? call.id : newId();
    while (seen.has(id)) id = newId();
    seen.add(id);
    calls.push({ id, name: call.name as string, arguments: parseToolArguments(call.arguments), ...(call.extra ?? {}) });
  }
  return calls;
}

