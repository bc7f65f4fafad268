import type { ContentPart, JsonSchema, RereadableOutput } from '@nanobot/schema';
import type { SsrfBlockedError } from '../web/ssrf-blocked-error.js';
import type { WorkspaceViolationError } from '../workspace/workspace-violation-error.js';

/** Loader scopes a built-in joins: `core` main agent, `subagent`, `memory` (Dream). */
export type ToolScope = 'core' | 'subagent' | 'memory';

/** The per-call facts a built-in reads; a structural subset of tools-core's `ToolContext`. */
export interface CallContext {
  readonly sessionKey?: string;
  readonly channel?: string;
  readonly chatId?: string;
  readonly senderId?: string;
  readonly messageId?: string;
  readonly workspace?: string;
  readonly signal?: AbortSignal;
}

/** A boundary refusal carried on an error result for the runner's classification. */
export type BoundaryViolation = WorkspaceViolationError | SsrfBlockedError;

/** What a built-in's logic returns before it is wrapped as a tools-core result. */
export interface Outcome {
  readonly text: string;
  /** Content blocks (e.g. an image with a caption) returned instead of `text` when present. */
  readonly blocks?: readonly ContentPart[];
  readonly isError: boolean;
  readonly violation?: BoundaryViolation;
}

/** A built-in tool's definition and logic, independent of the tools-core wrapper. */
export interface BuiltinToolSpec<A> {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  readonly readOnly: boolean;
  readonly exclusive: boolean;
  /** The result can be had again by calling the tool: the governor may compact it under pressure. */
  readonly compactable?: boolean;
  /** The output is paged content: cut with a continuation hint instead of offloaded (`true`: `offset`/`limit` lines). */
  readonly rereadable?: boolean | Partial<RereadableOutput>;
  readonly scopes: readonly ToolScope[];
  /** Never throws for model-side failures: they come back as `isError` outcomes. */
  run(args: A, ctx: CallContext): Promise<Outcome>;
}

/** A successful outcome. */
export function ok(text: string): Outcome {
  return { text, isError: false };
}

/** A successful outcome made of an image (base64) and a caption. */
export function image(caption: string, mimeType: string, data: Buffer | Uint8Array): Outcome {
  const base64 = Buffer.from(data).toString('base64');
  return {
    text: caption,
    isError: false,
    blocks: [
      { type: 'text', text: caption },
      { type: 'image_url', image_url: { url: `data:${mimeType};base64,${base64}` } },
    ],
  };
}

/** The image type of some bytes by their magic number (PNG, JPEG, GIF, WebP), else undefined. */
export function sniffImage(bytes: Uint8Array): string | undefined {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 16));
  if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47) return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 6 && (b.toString('latin1', 0, 6) === 'GIF87a' || b.toString('latin1', 0, 6) === 'GIF89a')) return 'image/gif';
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

/** A failed outcome the model reads; `violation` marks workspace/SSRF refusals. */
export function fail(text: string, violation?: BoundaryViolation): Outcome {
  return violation ? { text, isError: true, violation } : { text, isError: true };
}

/** The message of any thrown value, for `Error: …` texts. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
