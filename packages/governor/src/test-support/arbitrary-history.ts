// fast-check generators of stored histories with the corruptions real sessions show: orphan and
// duplicate results, missing results, unnamed calls, empty contents, placeholders, reused and
// missing ids, results separated from their call, mid-history system notes, developer
// messages, whitespace-only contents and blank text parts.
import fc from 'fast-check';
import type { Message } from '@nanobot/schema';

const WORDS = ['the', 'file', 'exec', 'result', 'error', 'path', 'config', 'Ωmega', '日本語', 'x = 1;', '{"k": 2}', 'line\nbreak', '  spaced  ', 'done.'];
const TOOL_NAMES = ['read_file', 'exec', 'grep', 'web_fetch', 'list_dir', 'write_file', 'message', 'mcp_git_status'];

const text = (maxWords: number) =>
  fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: maxWords }).map((w) => w.join(' '));
// Big results are made of repeated words so that tokenising stays cheap.
const bigText = fc.tuple(fc.constantFrom(...WORDS), fc.integer({ min: 0, max: 1200 })).map(([w, n]) => `${w} `.repeat(n));

type Step =
  | { kind: 'user'; text: string; image: boolean }
  | { kind: 'assistant'; text: string }
  | { kind: 'calls'; names: string[]; texts: string[]; big: string[]; reasoning: string | null }
  | { kind: 'system'; text: string };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('user' as const), text: text(12), image: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('assistant' as const), text: text(12) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('calls' as const),
      names: fc.array(fc.constantFrom(...TOOL_NAMES), { minLength: 1, maxLength: 3 }),
      texts: fc.array(text(20), { minLength: 3, maxLength: 3 }),
      big: fc.array(bigText, { minLength: 3, maxLength: 3 }),
      reasoning: fc.option(text(6), { nil: null }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('system' as const), text: text(8) }) },
);

/** Corruptions applied to a clean history. */
export type Corruption =
  | 'orphan' | 'duplicate' | 'drop-result' | 'unnamed-call' | 'empty-content' | 'placeholder'
  | 'reuse-id' | 'missing-id' | 'displace' | 'mid-system' | 'int-id' | 'result-before-call'
  | 'int-result-id' | 'calls-not-list' | 'whitespace-content' | 'developer' | 'blank-part' | 'responses-id';

const corruption = fc.constantFrom<Corruption>(
  'orphan', 'duplicate', 'drop-result', 'unnamed-call', 'empty-content', 'placeholder',
  'reuse-id', 'missing-id', 'displace', 'mid-system', 'int-id', 'result-before-call',
  'int-result-id', 'calls-not-list', 'whitespace-content', 'developer', 'blank-part', 'responses-id',
);

function build(steps: Step[], withSystem: boolean, short: boolean): Message[] {
  const out: Message[] = [];
  if (withSystem) out.push({ role: 'system', content: 'You are nanobot. Follow the rules.' });
  let n = 0;
  for (const s of steps) {
    if (s.kind === 'user') {
      out.push({ role: 'user', content: s.image ? [{ type: 'text', text: s.text || 'look' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] : s.text || 'hi' });
    } else if (s.kind === 'assistant') {
      out.push({ role: 'assistant', content: s.text });
    } else if (s.kind === 'system') {
      out.push({ role: 'system', content: s.text });
    } else {
      // 9-character ids restart per assistant turn on some providers: `short` makes reuse likely.
      const ids = s.names.map(() => (short ? `c${n++ % 4}` : `call_${n++}`));
      const msg: Message = {
        role: 'assistant',
        content: '',
        tool_calls: s.names.map((name, i) => ({ id: ids[i], type: 'function', function: { name, arguments: '{}' } })),
      };
      if (s.reasoning !== null) msg.reasoning_content = s.reasoning;
      out.push(msg);
      s.names.forEach((name, i) => out.push({ role: 'tool', tool_call_id: ids[i], name, content: i === 0 ? s.big[i] : s.texts[i] }));
    }
  }
  return out;
}

function corrupt(history: Message[], ops: [Corruption, number][]): Message[] {
  const h = history.map((m) => ({ ...m })) as Message[];
  for (const [op, r] of ops) {
    if (h.length === 0) break;
    const at = r % h.length;
    const toolIdx = h.map((m, i) => (m.role === 'tool' ? i : -1)).filter((i) => i >= 0);
    const callIdx = h.map((m, i) => (Array.isArray(m.tool_calls) && m.tool_calls.length ? i : -1)).filter((i) => i >= 0);
    const pickTool = toolIdx.length ? toolIdx[r % toolIdx.length] : -1;
    const pickCall = callIdx.length ? callIdx[r % callIdx.length] : -1;
    switch (op) {
      case 'orphan': h.splice(at, 0, { role: 'tool', tool_call_id: `ghost_${r}`, name: 'exec', content: 'stray' }); break;
      case 'duplicate': if (pickTool >= 0) h.splice(pickTool + 1, 0, { ...h[pickTool], content: 'again' }); break;
      case 'drop-result': if (pickTool >= 0) h.splice(pickTool, 1); break;
      case 'unnamed-call': if (pickCall >= 0) h[pickCall] = { ...h[pickCall], tool_calls: h[pickCall].tool_calls!.map((c, i) => (i === 0 ? { ...c, function: { ...c.function, name: (r % 2 ? null : '') as unknown as string } } : c)) }; break;
      case 'empty-content': h[at] = { ...h[at], content: r % 3 === 0 ? null : r % 3 === 1 ? '' : [] }; break;
      case 'placeholder': h.splice(at, 0, { role: 'assistant', content: '[Previous assistant message omitted.]' }); break;
      case 'reuse-id': if (callIdx.length >= 2) {
        const [a, b] = [callIdx[0], callIdx[callIdx.length - 1]];
        const reused = h[a].tool_calls![0].id;
        const old = h[b].tool_calls![0].id;
        h[b] = { ...h[b], tool_calls: h[b].tool_calls!.map((c, i) => (i === 0 ? { ...c, id: reused } : c)) };
        for (let i = b + 1; i < h.length && h[i].role === 'tool'; i++) if (h[i].tool_call_id === old) h[i] = { ...h[i], tool_call_id: reused };
      } break;
      case 'missing-id': if (pickCall >= 0) h[pickCall] = { ...h[pickCall], tool_calls: h[pickCall].tool_calls!.map((c, i) => (i === 0 ? { ...c, id: '' } : c)) }; break;
      case 'displace': if (pickTool >= 0 && pickTool + 1 < h.length) { const [m] = h.splice(pickTool, 1); h.splice(Math.min(h.length, pickTool + 1 + (r % 3)), 0, m); } break;
      case 'mid-system': h.splice(at, 0, { role: 'system', content: `note ${r}` }); break;
      case 'int-id': if (pickCall >= 0) {
        const id = h[pickCall].tool_calls![0].id;
        h[pickCall] = { ...h[pickCall], tool_calls: h[pickCall].tool_calls!.map((c, i) => (i === 0 ? { ...c, id: 900 + r } as unknown as typeof c : c)) };
        for (let i = pickCall + 1; i < h.length; i++) if (h[i].tool_call_id === id) h[i] = { ...h[i], tool_call_id: String(900 + r) };
      } break;
      case 'int-result-id': if (pickTool >= 0) {
        const id = h[pickTool].tool_call_id!;
        for (let i = 0; i < h.length; i++) {
          if (Array.isArray(h[i].tool_calls) && h[i].tool_calls!.some((c) => c.id === id)) h[i] = { ...h[i], tool_calls: h[i].tool_calls!.map((c) => (c.id === id ? { ...c, id: String(500 + r) } : c)) };
        }
        h[pickTool] = { ...h[pickTool], tool_call_id: (500 + r) as unknown as string };
      } break;
      case 'calls-not-list': if (pickCall >= 0) h[pickCall] = { ...h[pickCall], tool_calls: (r % 2 ? { id: 'x' } : 'call') as never }; break;
      // Aborted and reasoning-only turns as recorded: whitespace next to tool calls, or alone.
      case 'whitespace-content': { const i = pickCall >= 0 && r % 2 ? pickCall : at; h[i] = { ...h[i], content: r % 3 === 0 ? '\n\n' : ' ' }; } break;
      case 'developer': h.splice(r % 3 === 0 ? 0 : at, 0, { role: 'developer', content: `Developer rule ${r}: answer briefly.` }); break;
      case 'blank-part': h[at] = { ...h[at], content: [{ type: 'text', text: r % 2 ? '' : '\n' }, ...(r % 3 ? [{ type: 'text', text: `kept ${r}` }] : [])] }; break;
      // Responses-API ids as some clients store them (`call_…|fc_…`): Anthropic rejects them.
      case 'responses-id': if (pickCall >= 0) {
        const id = h[pickCall].tool_calls![0].id;
        const next = `${id}|fc_${r}`;
        h[pickCall] = { ...h[pickCall], tool_calls: h[pickCall].tool_calls!.map((c, i) => (i === 0 ? { ...c, id: next } : c)) };
        for (let i = pickCall + 1; i < h.length && h[i].role === 'tool'; i++) if (h[i].tool_call_id === id) h[i] = { ...h[i], tool_call_id: next };
      } break;
      case 'result-before-call': if (pickTool >= 0 && pickCall >= 0 && pickCall < pickTool) { const [m] = h.splice(pickTool, 1); h.splice(pickCall, 0, m); } break;
    }
  }
  return h;
}

/** A random stored history, clean or corrupted. */
export const arbitraryHistory: fc.Arbitrary<Message[]> = fc
  .record({
    steps: fc.array(step, { minLength: 1, maxLength: 14 }),
    withSystem: fc.boolean(),
    short: fc.boolean(),
    ops: fc.array(fc.tuple(corruption, fc.nat(1000)), { maxLength: 5 }),
  })
  .map(({ steps, withSystem, short, ops }) => corrupt(build(steps, withSystem, short), ops));

/** Random budget-related options (no window ⇒ no snipping). */
export const arbitraryBudget = fc.record({
  contextWindowTokens: fc.oneof(fc.constant(null), fc.integer({ min: 1300, max: 12000 })),
  maxOutputTokens: fc.integer({ min: 0, max: 300 }),
  maxToolResultChars: fc.constantFrom(200, 800, 2000, 16000),
  inflightStartIndex: fc.nat(12),
  contextBlockLimit: fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.integer({ min: 100, max: 3000 }) }),
});

/**
 * A random structurally clean history (every call named, with a unique id, answered once right
 * after its turn; no placeholder), sometimes ending with a turn whose calls are still open.
 */
export const arbitraryCleanHistory: fc.Arbitrary<Message[]> = fc
  .record({ steps: fc.array(step, { minLength: 1, maxLength: 14 }), withSystem: fc.boolean(), open: fc.nat(3) })
  .map(({ steps, withSystem, open }) => {
    const h = build(steps, withSystem, false);
    // An open tail: the last turn's newest results not there yet (tools still running).
    let cut = 0;
    while (cut < open && h.length > 1 && h[h.length - 1].role === 'tool') {
      h.pop();
      cut++;
    }
    return h;
  });
