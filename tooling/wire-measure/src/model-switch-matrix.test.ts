// Issue 25 item 3's matrix: the hand-made history of each producer family (its signed reasoning,
// thought signatures, reasoning_details, encrypted Responses items, provider-executed tool
// blocks) and the mixed switches, sent at every request point to every target through the real
// provider packages (@ai-sdk/* and our OpenAI-compatible provider) to the provider-wire
// stand-ins, governed with each route's target: 0 violations in every cell. And the producer's
// own target keeps its artifacts byte-exact, while every other target's report names each
// conversion.
import { describe, expect, it } from 'vitest';
import { checkLegality, govern } from '@nanobot/governor';
import type { GovernTarget } from '@nanobot/governor';
import { governModelMessages } from '@nanobot/ai-sdk';
import type { Message } from '@nanobot/schema';
import { measureProviderRules } from './measure.js';
import { BUDGETS, loadHistories } from './histories.js';
import { measurementRoutes } from './routes.js';
import { toModelMessages } from './to-model-messages.js';

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const switches = loadHistories().filter((h) => h.kind === 'model-switch');

/** The target of each producer family's own API. */
const OWN_TARGET: Readonly<Record<string, GovernTarget>> = {
  anthropic: 'anthropic',
  bedrock: 'bedrock',
  gemini: 'gemini',
  deepseek: 'deepseek',
  'openai-responses': 'responses',
  openrouter: 'openrouter',
  mistral: 'mistral',
  openai: 'openai',
};

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Every signed artifact a stored history carries, as JSON (a multiset, sorted). */
function artifacts(messages: readonly Message[]): string[] {
  const out: string[] = [];
  for (const m of messages as readonly Rec[]) {
    if (m.role !== 'assistant') continue;
    for (const b of Array.isArray(m.thinking_blocks) ? m.thinking_blocks : []) {
      if (isRec(b) && ((typeof b.signature === 'string' && b.signature !== '') || b.data !== undefined || b.encrypted_content !== undefined)) out.push(JSON.stringify(b));
    }
    if (m.reasoning_details !== undefined) out.push(JSON.stringify(m.reasoning_details));
    for (const c of Array.isArray(m.tool_calls) ? m.tool_calls : []) if (isRec(c) && c.extra_content !== undefined) out.push(JSON.stringify(c.extra_content));
    for (const p of Array.isArray(m.content) ? m.content : []) if (isRec(p) && p.type !== 'text') out.push(JSON.stringify(p));
  }
  return out.sort();
}

/** Every AI SDK part that carries provider options or was run by the provider, as JSON. */
function sdkArtifacts(messages: readonly unknown[]): string[] {
  const out: string[] = [];
  for (const m of messages) {
    if (!isRec(m) || m.role !== 'assistant' || !Array.isArray(m.content)) continue;
    for (const p of m.content) if (isRec(p) && (p.providerOptions !== undefined || p.providerExecuted === true || (p.type === 'tool-result'))) out.push(JSON.stringify(p));
  }
  return out.sort();
}

const CONVERSIONS = new Set(['foreign-reasoning-removed', 'server-tool-as-text']);

describe('model-switch matrix', () => {
  it('every producer\'s history, at every request point, to every target through the real provider packages: 0 violations', async () => {
    const routes = measurementRoutes();
    const rows: string[] = [`| history (producer) | ${routes.map((r) => r.id.replace(/^(ai-sdk|openai-compatible):/, (x) => (x === 'ai-sdk:' ? 'sdk:' : 'compat:'))).join(' | ')} |`, `| --- |${routes.map(() => ' ---: |').join('')}`];
    const cells: { history: string; route: string; rejected: number; requests: number; clientErrors: Record<string, number>; mismatches: string[]; examples: Record<string, string> }[] = [];
    for (const h of switches) {
      const m = await measureProviderRules({ histories: [h], routes, budgets: BUDGETS.filter((b) => b.label === 'none'), target: 'route' });
      rows.push(`| ${h.name} (${h.producer}) | ${m.routes.map((t) => `${t.rejected}/${t.requests}`).join(' | ')} |`);
      for (const t of m.routes) cells.push({ history: h.name, route: t.route, rejected: t.rejected, requests: t.requests, clientErrors: t.clientErrors, mismatches: t.mismatches, examples: t.examples });
    }
    console.log(`rejected/sent per (history, route), every request point, no budget:\n${rows.join('\n')}`);
    expect(cells.length).toBe(switches.length * routes.length);
    for (const c of cells) {
      expect(c.requests, `${c.history} → ${c.route} sent nothing`).toBeGreaterThan(0);
      expect({ cell: `${c.history} → ${c.route}`, rejected: c.rejected, clientErrors: c.clientErrors, mismatches: c.mismatches, examples: c.rejected > 0 ? c.examples : {} })
        .toEqual({ cell: `${c.history} → ${c.route}`, rejected: 0, clientErrors: {}, mismatches: [], examples: {} });
    }
  }, 900_000);

  const single = switches.filter((h) => OWN_TARGET[h.producer] !== undefined);

  it.each(single.map((h) => [h.name, h] as const))('%s: its own target keeps every artifact byte-exact (stored and AI SDK forms)', (_name, h) => {
    const own = OWN_TARGET[h.producer]!;
    const governed = govern(h.messages, { target: own });
    const expected = artifacts(h.messages.filter((m) => !(m.role === 'assistant' && !m.tool_calls && Array.isArray(m.thinking_blocks) && m.thinking_blocks.every((b) => (b as Rec).signature === ''))));
    expect(artifacts(governed.messages)).toEqual(expected);
    const steps = governed.report.steps.flatMap((s) => [...s.removed, ...s.added]).map((e) => e.reason);
    expect(steps.filter((r) => r !== undefined && CONVERSIONS.has(r))).toEqual([]);
    const sdk = toModelMessages(h.messages);
    expect(sdkArtifacts(governModelMessages(sdk, { target: own }).messages)).toEqual(sdkArtifacts(sdk));
  });

  it.each(single.map((h) => [h.name, h] as const))('%s: every other target removes or rewrites what it cannot take, and the report names each conversion', (_name, h) => {
    const own = OWN_TARGET[h.producer]!;
    const before = artifacts(h.messages);
    for (const target of Object.values(OWN_TARGET).filter((t) => t !== own)) {
      const governed = govern(h.messages, { target });
      const after = artifacts(governed.messages);
      const reasons = governed.report.steps.flatMap((s) => s.added).map((e) => e.reason).filter((r) => r !== undefined && CONVERSIONS.has(r));
      // Whatever left the copy was converted and reported; what stayed is the target's own.
      if (after.length < before.length) expect(reasons.length, `${h.name} → ${target}`).toBeGreaterThan(0);
      for (const a of after) expect(before, `${h.name} → ${target}: ${a}`).toContain(a);
      expect(checkLegality(governed.messages, { target }).filter((v) => v.rule === 'foreign-artifact'), `${h.name} → ${target}`).toEqual([]);
      // OpenAI chat takes no provider's signed state back: nothing of it is left.
      if (target === 'openai') expect(after, h.name).toEqual([]);
    }
    // The ungoverned history breaks the OpenAI rule wherever it carries signed state.
    expect(checkLegality(h.messages, { target: own === 'openai' ? 'mistral' : 'openai' }).some((v) => v.rule === 'foreign-artifact')).toBe(before.length > 0);
  });

  it('anthropic server tool blocks reach other targets as text naming the query and the results', () => {
    const h = switches.find((x) => x.name === 'anthropic-server-tool-blocks')!;
    const governed = govern(h.messages, { target: 'openai' });
    const turn = governed.messages.find((m) => m.role === 'assistant' && Array.isArray(m.content))!;
    expect(turn.content).toEqual([
      { type: 'text', text: 'Let me search.' },
      { type: 'text', text: '[web_search (run by the provider) called with {"query":"Node.js LTS version"}]' },
      { type: 'text', text: '[web_search_tool_result (run by the provider): Node.js releases <https://nodejs.org/en/about/previous-releases>]' },
      { type: 'text', text: 'Node 24 is the active LTS.' },
    ]);
    const entry = governed.report.steps.find((s) => s.step === 'legalizeForTarget')!.added.find((e) => e.reason === 'server-tool-as-text');
    expect(entry?.role).toBe('assistant');
    expect(govern(h.messages, { target: 'anthropic' }).messages[1]).toBe(h.messages[1]);
  });
});
