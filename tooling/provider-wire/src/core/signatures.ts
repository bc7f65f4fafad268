// Signatures the local servers hand out and verify. A real provider signs reasoning (Anthropic
// thinking, Bedrock reasoningText, Gemini thought signatures, Responses encrypted reasoning,
// OpenRouter reasoning_details) with a key of its own; a stand-in cannot check theirs, so it
// signs with a public, deterministic digest of what the signature is bound to (server-side
// compaction's opaque state too: Anthropic's `encrypted_content` beside the summary, the
// Responses compaction item's `encrypted_content`). A history built
// with these (the committed model-switch fixtures, a server's own replies) is verifiable: a
// changed text, a signature moved to another part or a made-up one is detected, as the real
// APIs detect it.
import { createHash } from 'node:crypto';

/** What a signature is bound to: the kind of block and the exact content it came with. */
export type SignatureKind = 'anthropic-thinking' | 'anthropic-compaction' | 'bedrock-reasoning' | 'gemini-thought' | 'responses-reasoning' | 'responses-compaction' | 'openrouter-reasoning';

/** The signature a provider-wire server gives `content` of `kind` (base64, deterministic). */
export function wireSignature(kind: SignatureKind, content: string): string {
  return createHash('sha256').update(`provider-wire:${kind}:`).update(content).digest('base64');
}

/** Whether `signature` is the one {@link wireSignature} gives `content` of `kind`. */
export function verifyWireSignature(kind: SignatureKind, content: string, signature: unknown): boolean {
  return typeof signature === 'string' && signature === wireSignature(kind, content);
}

/** Canonical JSON (sorted keys) so a signature bound to structured arguments survives re-serialisation. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const rec = value as Record<string, unknown>;
    return `{${Object.keys(rec).sort().filter((k) => rec[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canonicalJson(rec[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
