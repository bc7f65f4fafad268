// Issue 25's measurement: every history at its request points, at each budget, governed with
// today's governor (`target: 'any'`), sent through each route to its stand-in; counts what the
// stand-ins reject, per route and per rule, and checks that each client saw the server's verdict.
import { govern, TARGET_PROFILES } from '@nanobot/governor';
import type { GovernOptions, GovernTarget } from '@nanobot/governor';
import { governModelMessages } from '@nanobot/ai-sdk';
import type { WireServer } from '@nanobot-internal/provider-wire';
import type { Message } from '@nanobot/schema';
import type { Budget, History } from './histories.js';
import { BUDGETS, budgetOptions, loadHistories, requestPoints, samplePoints, toolNames } from './histories.js';
import type { Route } from './routes.js';
import { measurementRoutes, toolDefinitions } from './routes.js';
import { toModelMessages } from './to-model-messages.js';

/** Options of {@link measureProviderRules}. */
export interface MeasureOptions {
  /** Every how-many-th request point of each recorded session (1: all; default 1). */
  stride?: number;
  /** Every how-many-th request point of each model-switch history (default 1: all). */
  switchStride?: number;
  /** Measure only every `count`-th request point starting at `index` (split a run over processes; {@link mergeMeasurements} joins the parts). */
  shard?: { index: number; count: number };
  histories?: readonly History[];
  routes?: readonly Route[];
  budgets?: readonly Budget[];
  /**
   * Which target each request is governed with: `'any'` (default: today's default, the same copy
   * for every route) or `'route'` (each route's provider target, as a runner or the AI SDK
   * middleware picks it).
   */
  target?: 'any' | 'route';
  /** Extra govern options (the defaults: the target and the budget). */
  governOptions?: GovernOptions;
  /** Called after each request point (all routes) is done. Contract: not awaited, must not throw. */
  onProgress?: (done: number, total: number) => void;
}

/** What one route saw. */
export interface RouteTally {
  route: string;
  provider: string;
  path: Route['path'];
  model: string;
  requests: number;
  /** Requests the stand-in rejected (at least one rule broken). */
  rejected: number;
  /** Requests per broken rule (a request counts once per rule). */
  byRule: Record<string, number>;
  /** Rejected requests per history kind. */
  byKind: Record<History['kind'], { requests: number; rejected: number }>;
  /** Requests the client refused before sending, by error name. */
  clientErrors: Record<string, number>;
  /** Outcomes where the client and the server disagree (should stay empty). */
  mismatches: string[];
  /** Governed copies that lost the request's newest user message (should stay empty). */
  newestUserLost: string[];
  /** First rejected example per rule: history, prefix length, budget, message. */
  examples: Record<string, string>;
}

/** The whole measurement. */
export interface Measurement {
  histories: number;
  requestPoints: number;
  budgets: string[];
  requests: number;
  rejected: number;
  routes: RouteTally[];
  durationMs: number;
}

function tally(route: Route): RouteTally {
  return { route: route.id, provider: route.provider, path: route.path, model: route.model, requests: 0, rejected: 0, byRule: {}, byKind: { recorded: { requests: 0, rejected: 0 }, 'model-switch': { requests: 0, rejected: 0 } }, clientErrors: {}, mismatches: [], newestUserLost: [], examples: {} };
}

const errorName = (e: unknown): string => (e instanceof Error ? (e.constructor?.name ?? e.name) : typeof e);

async function sendOne(route: Route, server: WireServer, t: RouteTally, input: Parameters<Route['send']>[1], where: { history: History; end: number; budget: string }): Promise<void> {
  const before = server.requests.length;
  let error: unknown;
  try {
    await route.send(server, input);
  } catch (e) {
    error = e ?? new Error('undefined error');
  }
  const sent = server.requests.slice(before);
  const label = `${where.history.name}[:${where.end}] @${where.budget}`;
  if (sent.length === 0) {
    const name = error ? errorName(error) : 'no request';
    t.clientErrors[name] = (t.clientErrors[name] ?? 0) + 1;
    if (!t.examples[`client:${name}`]) t.examples[`client:${name}`] = `${label}: ${error instanceof Error ? error.message.slice(0, 300) : String(error)}`;
    return;
  }
  t.requests += 1;
  t.byKind[where.history.kind].requests += 1;
  const violations = sent[0]!.violations;
  if (violations.length > 0) {
    t.rejected += 1;
    t.byKind[where.history.kind].rejected += 1;
    for (const rule of new Set(violations.map((v) => v.rule))) {
      t.byRule[rule] = (t.byRule[rule] ?? 0) + 1;
      if (!t.examples[rule]) t.examples[rule] = `${label}: ${violations.find((v) => v.rule === rule)!.message.slice(0, 300)}`;
    }
    if (!error) t.mismatches.push(`${label}: the server rejected it but the client reported success`);
  } else if (error) {
    t.mismatches.push(`${label}: the server accepted it but the client failed: ${error instanceof Error ? error.message.slice(0, 200) : String(error)}`);
  }
}

/** Whether `governed` still holds the newest user message of `prefix` (its text, possibly shortened to fit). */
function keepsNewestUser(prefix: readonly Message[], governed: readonly Message[]): boolean {
  const newest = prefix.findLast((m) => m.role === 'user');
  if (newest === undefined) return true;
  const text = (m: Message) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ''));
  const head = text(newest).slice(0, 80);
  return governed.some((m) => m === newest || (m.role === 'user' && text(m).includes(head)));
}

/**
 * Runs the measurement. Starts one stand-in per route on 127.0.0.1 and stops them all before
 * returning (also on failure).
 */
export async function measureProviderRules(options: MeasureOptions = {}): Promise<Measurement> {
  const started = performance.now();
  const histories = options.histories ?? loadHistories();
  const routes = options.routes ?? measurementRoutes();
  const budgets = options.budgets ?? BUDGETS;
  const stride = options.stride ?? 1;
  const servers = await Promise.all(routes.map((r) => r.start()));
  const tallies = routes.map(tally);
  const shard = options.shard ?? { index: 0, count: 1 };
  const plan = histories
    .flatMap((h) => samplePoints(requestPoints(h), h.kind === 'recorded' ? stride : (options.switchStride ?? 1)).map((end) => ({ h, end })))
    .filter((_, k) => k % shard.count === shard.index);
  let done = 0;
  try {
    for (const { h, end } of plan) {
      const prefix = h.messages.slice(0, end);
      const names = toolNames(h.messages);
      const tools = toolDefinitions(names);
      const modelPrefix = toModelMessages(prefix);
      for (const budget of budgets) {
        // One governed copy per target (and per dialect), shared by the routes that use it; per
        // model too where the target's profile has rules for particular models (OpenRouter's
        // Gemini 3 and Claude thinking, deepseek-reasoner), as a runner passes its model.
        const copies = new Map<string, Parameters<Route['send']>[1]>();
        const copyFor = (target: GovernTarget, model: string) => {
          const profile = TARGET_PROFILES[target];
          const byModel = profile.currentTurnReasoning !== undefined || profile.earlierReasoningRemovedFor !== undefined;
          const key = byModel ? `${target}|${model}` : target;
          let input = copies.get(key);
          if (input === undefined) {
            // The model's rules only: the window stays the budget's (none: 0) and the count cl100k.
            const modelOptions: GovernOptions = byModel ? { model, tokenizer: 'cl100k_base', ...(budget.tokens === null ? { contextWindowTokens: 0 } : {}) } : {};
            const opts: GovernOptions = { target, ...budgetOptions(budget.tokens), ...modelOptions, tools, ...options.governOptions };
            input = { messages: govern(prefix, opts).messages, modelMessages: governModelMessages(modelPrefix, opts).messages, toolNames: names };
            copies.set(key, input);
          }
          return input;
        };
        await Promise.all(routes.map((r, i) => {
          const input = options.target === 'route' ? copyFor(r.target, r.model) : copyFor('any', r.model);
          if (!keepsNewestUser(prefix, input.messages)) tallies[i]!.newestUserLost.push(`${h.name}[:${end}] @${budget.label}`);
          return sendOne(r, servers[i]!, tallies[i]!, input, { history: h, end, budget: budget.label });
        }));
      }
      for (const s of servers) s.clear();
      options.onProgress?.(++done, plan.length);
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
  return {
    histories: histories.length,
    requestPoints: plan.length,
    budgets: budgets.map((b) => b.label),
    requests: tallies.reduce((n, t) => n + t.requests, 0),
    rejected: tallies.reduce((n, t) => n + t.rejected, 0),
    routes: tallies,
    durationMs: performance.now() - started,
  };
}

/** Joins the measurements of the shards of one run (same routes, same budgets) into one. */
export function mergeMeasurements(parts: readonly Measurement[]): Measurement {
  const [first, ...rest] = parts;
  if (!first) throw new Error('mergeMeasurements: no measurement to merge');
  const routes: RouteTally[] = structuredClone(first.routes);
  for (const part of rest) {
    part.routes.forEach((t, i) => {
      const into = routes[i];
      if (!into || into.route !== t.route) throw new Error(`mergeMeasurements: route ${t.route} is not at position ${i} of the first part`);
      into.requests += t.requests;
      into.rejected += t.rejected;
      for (const [k, n] of Object.entries(t.byRule)) into.byRule[k] = (into.byRule[k] ?? 0) + n;
      for (const [k, n] of Object.entries(t.clientErrors)) into.clientErrors[k] = (into.clientErrors[k] ?? 0) + n;
      for (const kind of ['recorded', 'model-switch'] as const) {
        into.byKind[kind].requests += t.byKind[kind].requests;
        into.byKind[kind].rejected += t.byKind[kind].rejected;
      }
      into.mismatches.push(...t.mismatches);
      into.newestUserLost.push(...t.newestUserLost);
      for (const [k, v] of Object.entries(t.examples)) into.examples[k] ??= v;
    });
  }
  return {
    histories: first.histories,
    requestPoints: parts.reduce((n, p) => n + p.requestPoints, 0),
    budgets: first.budgets,
    requests: parts.reduce((n, p) => n + p.requests, 0),
    rejected: parts.reduce((n, p) => n + p.rejected, 0),
    routes,
    durationMs: Math.max(...parts.map((p) => p.durationMs)),
  };
}
