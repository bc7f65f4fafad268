// What a history made by one provider family carries that only that family takes back, and how
// it is sent to another: a model switch. Each assistant turn may hold its producer's signed
// reasoning (Anthropic `thinking` / `redacted_thinking`, Bedrock's, Responses' encrypted
// `reasoning` items in `thinking_blocks`, OpenRouter `reasoning_details`, Gemini thought
// signatures on calls) and provider-executed tool blocks (Anthropic `server_tool_use` and its
// `*_tool_result` blocks, AI SDK provider-executed `tool-call` / `tool-result` parts). A target
// whose profile keeps the family gets them byte-exact; any other target gets the reasoning
// removed (it is the producer's private, signed state: no other API can verify or place it)
// and the server tool blocks as plain text (what was searched and found stays readable). One
// message in, one verdict out: the rule depends on the message and the target only, so
// legalizeForTarget's per-message memo holds it.
import type { ContentPart, Message, ToolCall } from '@nanobot/schema';
import { ARTIFACT_FAMILIES } from './artifact-family.js';
import type { ArtifactFamily } from './artifact-family.js';
import type { TargetBehaviour } from './target-profile.js';


type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Anthropic content blocks of provider-executed tools (the server ran them, only Anthropic reads them back). */
const ANTHROPIC_SERVER_BLOCKS: readonly string[] = Object.freeze(['server_tool_use', 'mcp_tool_use', 'mcp_tool_result', 'container_upload', 'compaction']);

/** Whether a content part is a provider-executed tool block, and whose. */
export function serverToolFamily(part: unknown): ArtifactFamily | null {
  if (!isRec(part) || typeof part.type !== 'string') return null;
  const type = part.type;
  // The Responses API's compaction item has the same type name as Anthropic's block, but no
  // `content` summary beside its opaque `encrypted_content` (Anthropic's block always has one).
  if (type === 'compaction' && !('content' in part) && typeof part.encrypted_content === 'string') return 'responses';
  if (ANTHROPIC_SERVER_BLOCKS.includes(type) || type.endsWith('_tool_result')) return 'anthropic';
  // AI SDK parts: the dialect marks provider-executed ones (non-enumerable `providerExecuted`, `producer`).
  if ((type === 'tool-call' || type === 'tool-result') && part.providerExecuted === true) {
    return typeof part.producer === 'string' && (ARTIFACT_FAMILIES as readonly string[]).includes(part.producer) ? (part.producer as ArtifactFamily) : 'anthropic';
  }
  return null;
}

/** The family of one `thinking_blocks` entry (or thinking content part). */
function blockFamily(block: unknown): ArtifactFamily | null {
  if (!isRec(block)) return null;
  if (block.type === 'reasoning') return 'responses';
  if (block.type === 'thinking' || block.type === 'redacted_thinking') return block.producer === 'bedrock' ? 'bedrock' : 'anthropic';
  return null;
}

/** A signed thinking content part (Anthropic dialect): not plain reasoning text. */
function isSignedThinkingPart(part: unknown): boolean {
  return isRec(part) && ((part.type === 'thinking' && typeof part.signature === 'string' && part.signature !== '') || (part.type === 'redacted_thinking' && typeof part.data === 'string'));
}

/**
 * The family of a reasoning content part whose dialect marked its producer (the AI SDK's signed
 * reasoning parts: non-enumerable `producer`); null for any other part.
 */
function markedReasoningFamily(part: unknown): ArtifactFamily | null {
  if (!isRec(part) || part.type !== 'reasoning' || typeof part.producer !== 'string') return null;
  return (ARTIFACT_FAMILIES as readonly string[]).includes(part.producer) ? (part.producer as ArtifactFamily) : null;
}

/** Whether a call carries an enumerable Gemini thought signature (the stored OpenAI-compatible form). */
function hasOwnSignature(call: unknown): boolean {
  if (!isRec(call) || !Object.prototype.propertyIsEnumerable.call(call, 'extra_content')) return false;
  const google = isRec(call.extra_content) ? call.extra_content.google : undefined;
  return isRec(google) && google.thought_signature !== undefined;
}

/** What {@link convertForeignArtifacts} did to a message (a report reason). */
export type ArtifactChange = 'foreign-reasoning-removed' | 'server-tool-as-text' | 'reasoning-summary-added';

/** Text of a provider-executed tool block for a target that cannot take the block. */
export function serverToolText(part: Rec): string {
  const type = String(part.type);
  // Anthropic's server-side compaction: its summary is readable text, which another API takes as such.
  if (type === 'compaction') return `[summary of the earlier conversation (compacted by the provider)]\n${typeof part.content === 'string' ? part.content : describeResult(part.content)}`;
  if (type === 'server_tool_use' || type === 'mcp_tool_use' || type === 'tool-call') {
    const name = String(part.name ?? part.toolName ?? 'tool');
    const input = part.input ?? {};
    return `[${name} (run by the provider) called with ${typeof input === 'string' ? input : JSON.stringify(input)}]`;
  }
  const body = part.content ?? part.output ?? part.result;
  return `[${type === 'tool-result' ? `${String(part.toolName ?? 'tool')} result` : type} (run by the provider): ${describeResult(body)}]`;
}

function describeResult(body: unknown): string {
  if (typeof body === 'string') return clip(body);
  if (Array.isArray(body)) {
    const lines = body.map((r) => (isRec(r) && (typeof r.url === 'string' || typeof r.title === 'string') ? `${String(r.title ?? '')} <${String(r.url ?? '')}>`.trim() : clip(JSON.stringify(withoutEncrypted(r)) ?? ''))).filter((l) => l !== '');
    return clip(lines.join('; '));
  }
  return clip(JSON.stringify(withoutEncrypted(body)) ?? '');
}

/** The value without its encrypted fields (opaque bytes no other model can read). */
function withoutEncrypted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutEncrypted);
  if (!isRec(v)) return v;
  const out: Rec = {};
  for (const [k, x] of Object.entries(v)) if (!k.startsWith('encrypted')) out[k] = withoutEncrypted(x);
  return out;
}

const clip = (s: string): string => (s.length > 2000 ? `${s.slice(0, 2000)}…` : s);

/**
 * The message as `profile`'s target takes it: artifacts of families the profile keeps stay
 * byte-exact (the same objects); signed reasoning of another family is removed (`thinking_blocks`
 * entries, signed thinking parts, reasoning parts a dialect marked with their producer,
 * `reasoning_details`, enumerable thought signatures on calls);
 * provider-executed tool blocks of another family become text parts in their place; for a
 * target that requires it, a Responses reasoning item without `summary` gets `summary: []`.
 * Null when nothing changes. Pure; the input is never mutated.
 */
export function convertForeignArtifacts(msg: Message, profile: TargetBehaviour): { out: Message; reason: ArtifactChange } | null {
  if (msg.role !== 'assistant') return null;
  const keeps = profile.keepsArtifactsOf;
  if (keeps.length === ARTIFACT_FAMILIES.length && !profile.reasoningSummaryRequired) return null;
  const m = msg as Message & Rec;
  let out: (Message & Rec) | null = null;
  let reason: ArtifactChange | null = null;
  const note = (r: ArtifactChange) => {
    // The most visible change names the rewrite: text replacing a block over a removal.
    if (reason === null || r === 'server-tool-as-text' || (r === 'foreign-reasoning-removed' && reason === 'reasoning-summary-added')) reason = r;
  };
  const copy = (): Message & Rec => (out ??= { ...m });

  if (Array.isArray(m.thinking_blocks) && m.thinking_blocks.length > 0) {
    let changed = false;
    const blocks: unknown[] = [];
    for (const b of m.thinking_blocks as unknown[]) {
      const family = blockFamily(b);
      if (family !== null && !keeps.includes(family)) {
        changed = true;
        note('foreign-reasoning-removed');
        continue;
      }
      if (family === 'responses' && profile.reasoningSummaryRequired && isRec(b) && !Array.isArray(b.summary)) {
        changed = true;
        note('reasoning-summary-added');
        blocks.push({ ...b, summary: [] });
        continue;
      }
      blocks.push(b);
    }
    if (changed) {
      const c = copy();
      if (blocks.length > 0) c.thinking_blocks = blocks as NonNullable<Message['thinking_blocks']>;
      else delete c.thinking_blocks;
    }
  }
  if (m.reasoning_details !== undefined && m.reasoning_details !== null && !keeps.includes('openrouter')) {
    delete copy().reasoning_details;
    note('foreign-reasoning-removed');
  }
  if (Array.isArray(m.tool_calls) && !keeps.includes('gemini') && m.tool_calls.some(hasOwnSignature)) {
    copy().tool_calls = (m.tool_calls as ToolCall[]).map((c) => (hasOwnSignature(c) ? withoutSignature(c) : c));
    note('foreign-reasoning-removed');
  }
  if (Array.isArray(m.content)) {
    let parts: ContentPart[] | null = null;
    (m.content as ContentPart[]).forEach((p, i) => {
      const server = serverToolFamily(p);
      if (server !== null && !keeps.includes(server)) {
        parts ??= (m.content as ContentPart[]).slice(0, i);
        parts.push({ type: 'text', text: serverToolText(p as Rec) });
        note('server-tool-as-text');
        return;
      }
      const marked = markedReasoningFamily(p);
      if ((marked !== null && !keeps.includes(marked)) || (isSignedThinkingPart(p) && !keeps.includes((p as Rec).producer === 'bedrock' ? 'bedrock' : 'anthropic'))) {
        parts ??= (m.content as ContentPart[]).slice(0, i);
        note('foreign-reasoning-removed');
        return;
      }
      parts?.push(p);
    });
    if (parts !== null) copy().content = parts;
  }
  return out === null || reason === null ? null : { out, reason };
}

function withoutSignature(call: ToolCall): ToolCall {
  const extra = { ...(call as ToolCall & { extra_content: Rec }).extra_content };
  const google = { ...(extra.google as Rec) };
  delete google.thought_signature;
  if (Object.keys(google).length > 0) extra.google = google;
  else delete extra.google;
  const out = { ...call } as ToolCall & Rec;
  if (Object.keys(extra).length > 0) out.extra_content = extra;
  else delete out.extra_content;
  return out;
}

/**
 * What `profile`'s target would refuse or misplace in `msg` (for checkLegality): a foreign
 * family's artifact, or a Responses reasoning item without `summary`. Empty when none.
 */
export function foreignArtifactsIn(msg: Message, profile: TargetBehaviour): string[] {
  const found: string[] = [];
  if (msg.role !== 'assistant') return found;
  const keeps = profile.keepsArtifactsOf;
  const m = msg as Message & Rec;
  for (const b of Array.isArray(m.thinking_blocks) ? (m.thinking_blocks as unknown[]) : []) {
    const family = blockFamily(b);
    if (family !== null && !keeps.includes(family)) found.push(`${family} reasoning`);
    else if (family === 'responses' && profile.reasoningSummaryRequired && isRec(b) && !Array.isArray(b.summary)) found.push('a reasoning item without summary');
  }
  if (m.reasoning_details !== undefined && m.reasoning_details !== null && !keeps.includes('openrouter')) found.push('openrouter reasoning_details');
  if (!keeps.includes('gemini') && Array.isArray(m.tool_calls) && m.tool_calls.some(hasOwnSignature)) found.push('gemini thought signature');
  for (const p of Array.isArray(m.content) ? (m.content as unknown[]) : []) {
    const server = serverToolFamily(p);
    if (server !== null && !keeps.includes(server)) found.push(`${server} provider-executed tool block ${String((p as Rec).type)}`);
    else if (isSignedThinkingPart(p) && !keeps.includes((p as Rec).producer === 'bedrock' ? 'bedrock' : 'anthropic')) found.push('signed thinking part');
    else if (markedReasoningFamily(p) !== null && !keeps.includes(markedReasoningFamily(p)!)) found.push(`${markedReasoningFamily(p)!} reasoning part`);
  }
  return found;
}
