import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool } from 'pg';
import type { LLMRequest, Message } from '@nanobot/schema';
import { ScriptedProvider } from '@nanobot/providers/testing';
import type { Agent } from '@nanobot/runner';
import type { PostgresMessageBus } from '../postgres-message-bus.js';
import type { PostgresMessageBusOptions } from '../postgres-message-bus.js';
import type { PostgresSessionStore, PostgresSessionStoreOptions } from '../postgres-session-store.js';
import { createPostgresAgent } from '../create-postgres-agent.js';

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
 * `list_dir` call, then every turn ends with {@link scriptedAnswer} of the last user message
 * (followed by ` [tag]` when a tag is given: which worker answered). `onCall` (awaited, may
 * throw) sees each request first.
 */
export function scriptedModel(latencyMs: number, onCall?: (request: LLMRequest) => void | Promise<void>, tag?: string): ScriptedProvider {
  return new ScriptedProvider(async (request) => {
    await onCall?.(request);
    if (latencyMs > 0) await new Promise((r) => setTimeout(r, latencyMs));
    const last = request.messages[request.messages.length - 1]!;
    const user = lastUser(request.messages);
    if (last.role === 'user' && user.includes('tool')) return { toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] };
    return tag === undefined ? scriptedAnswer(user) : `${scriptedAnswer(user)} [${tag}]`;
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

/** Starts a worker process's parts in this process (through `createPostgresAgent`). */
export async function startTestWorker(
  pool: Pool,
  options: {
    latencyMs?: number;
    onCall?: (request: LLMRequest) => void | Promise<void>;
    tag?: string;
    bus?: Partial<PostgresMessageBusOptions>;
    store?: Omit<PostgresSessionStoreOptions, 'pool' | 'schema'>;
  } = {},
): Promise<TestWorker> {
  const workspace = await mkdtemp(join(tmpdir(), 'nanobot-worker-'));
  const worker = createPostgresAgent({
    pool,
    workspace,
    provider: scriptedModel(options.latencyMs ?? 0, options.onCall, options.tag),
    ...(options.store ? { store: options.store } : {}),
    contextBuilder: false,
    exec: false,
    web: false,
    subagents: false,
    busOptions: { pollIntervalMs: 200, outboundPollMs: 200, lockTimeoutMs: 3000, heartbeatMs: 500, onLog: () => undefined, ...options.bus },
  });
  await worker.start();
  return { agent: worker.agent, bus: worker.bus, sessions: worker.sessions, stop: () => worker.stop() };
}
