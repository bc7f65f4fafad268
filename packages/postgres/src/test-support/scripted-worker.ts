import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool } from 'pg';
import type { LLMRequest, Message } from '@nanobot/schema';
import { ScriptedProvider } from '@nanobot/providers/testing';
import { createAgent } from '@nanobot/runner';
import type { Agent } from '@nanobot/runner';
import { PostgresMessageBus } from '../postgres-message-bus.js';
import type { PostgresMessageBusOptions } from '../postgres-message-bus.js';
import { PostgresSessionStore } from '../postgres-session-store.js';

/** The text a scripted worker answers `content` with. */
export function scriptedAnswer(content: string): string {
  return `answer to ${content}`;
}

function lastUser(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i]!;
    if (m.role === 'user' && typeof m.content === 'string') return m.content;
  }
  return '';
}

/**
 * A scripted model for worker tests: after `latencyMs`, a message containing "tool" first gets a
 * `list_dir` call, then every turn ends with {@link scriptedAnswer} of the last user message.
 * `onCall` (awaited, may throw) sees each request first.
 */
export function scriptedModel(latencyMs: number, onCall?: (request: LLMRequest) => void | Promise<void>): ScriptedProvider {
  return new ScriptedProvider(async (request) => {
    await onCall?.(request);
    if (latencyMs > 0) await new Promise((r) => setTimeout(r, latencyMs));
    const last = request.messages[request.messages.length - 1]!;
    const user = lastUser(request.messages);
    if (last.role === 'user' && user.includes('tool')) return { toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] };
    return scriptedAnswer(user);
  });
}

/** A worker: store, bus and agent on `pool`, started. */
export interface TestWorker {
  agent: Agent;
  bus: PostgresMessageBus;
  sessions: PostgresSessionStore;
  /** Stops the worker the way a SIGTERM handler should: bus first (running turns finish), then the loop. */
  stop(): Promise<void>;
}

/** Starts a worker process's parts in this process. */
export async function startTestWorker(
  pool: Pool,
  options: { latencyMs?: number; onCall?: (request: LLMRequest) => void | Promise<void>; bus?: Partial<PostgresMessageBusOptions> } = {},
): Promise<TestWorker> {
  const workspace = await mkdtemp(join(tmpdir(), 'nanobot-worker-'));
  const sessions = new PostgresSessionStore({ pool });
  const bus = new PostgresMessageBus({ pool, sessions, pollIntervalMs: 200, outboundPollMs: 200, lockTimeoutMs: 3000, heartbeatMs: 500, ...options.bus });
  const agent = createAgent({
    workspace,
    provider: scriptedModel(options.latencyMs ?? 0, options.onCall),
    sessions,
    bus,
    contextBuilder: false,
    exec: false,
    web: false,
    subagents: false,
  });
  agent.start();
  await bus.startWorker();
  return {
    agent,
    bus,
    sessions,
    async stop() {
      await bus.close();
      await agent.stop();
    },
  };
}
