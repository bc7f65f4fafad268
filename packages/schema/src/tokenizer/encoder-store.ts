// The tokenizer's rank data and the encoders built from it, one per encoding. Ranks are
// megabytes of base64 that take a few hundred ms to parse, so nothing loads at import. They come
// in three ways:
// - `loadTokenizer()`: a dynamic `import()` of js-tiktoken's rank module with a literal
//   specifier, so every bundler (esbuild, Vite, webpack, Next.js) emits each encoding as a chunk
//   of its own, fetched on its first load;
// - `loadTokenizer(encoding, { ranks })`: rank data the caller already has;
// - a synchronous source that only the Node entry registers (`@nanobot/schema/node`, which Node,
//   Bun and Deno resolve `@nanobot/schema` to through the `node` export condition): it reads the
//   ranks from node_modules on the first count, so synchronous counting needs no await there.
// A count that finds its encoding neither loaded nor loadable synchronously throws
// TokenizerNotLoadedError: counting bytes instead would cut histories three times too early.
import { TokenizerNotLoadedError, ValidationError } from '../errors/errors.js';
import type { TokenizerName } from '../models/model-info.js';
import { isRecord } from '../util/is-record.js';
import { RankEncoder, type TokenizerRanks } from './rank-encoder.js';

/** The tiktoken encodings we count in. */
export type EncodingName = 'cl100k_base' | 'o200k_base';

/** Every encoding, in the order `loadTokenizer()` loads them without an argument. */
export const ENCODINGS: readonly EncodingName[] = ['cl100k_base', 'o200k_base'];

export type { TokenizerRanks } from './rank-encoder.js';

/** What counts and decodes in one encoding (built from its ranks). */
export type Encoder = RankEncoder;

/**
 * Reads an encoding's ranks synchronously (the Node entry's source requires them from
 * node_modules). Contract: may throw (the count then throws {@link TokenizerNotLoadedError} with
 * that cause); called at most once per encoding until it succeeds.
 */
export type SyncRankSource = (encoding: EncodingName) => unknown;

/** An encoding ready to count: its encoder, its pre-split pattern and its ranks. */
export interface LoadedEncoding {
  encoder: Encoder;
  /** The pre-split pattern js-tiktoken uses (global, unicode), for counting piece by piece. */
  pieces: RegExp;
  ranks: TokenizerRanks;
  /** Milliseconds the ranks took to load and parse. */
  loadMs: number;
}

/** What `loadTokenizer` accepts besides the encodings. */
export interface LoadTokenizerOptions {
  /**
   * The encoding's rank data, when you have it already (imported yourself, fetched from your CDN,
   * inlined): js-tiktoken's `TiktokenBPE` object or the module that exports it as `default`.
   * Only with a single encoding.
   */
  ranks?: TokenizerRanks | { default: TokenizerRanks };
}

// `<|endoftext|>`'s id differs per encoding: a cheap check that given ranks are the named ones.
const END_OF_TEXT: Record<EncodingName, number> = { cl100k_base: 100_257, o200k_base: 199_999 };

const loaded = new Map<EncodingName, LoadedEncoding>();
const pending = new Map<EncodingName, Promise<LoadedEncoding>>();
const syncFailures = new Map<EncodingName, unknown>();
let syncSource: SyncRankSource | null = null;
let forcedUnavailable = false;

/** Registers the synchronous rank source (the Node entry does; nothing else should). */
export function setSyncRankSource(source: SyncRankSource | null): void {
  syncSource = source;
  syncFailures.clear();
}

/**
 * Test hook: pretend tiktoken is missing (`true`) so the reference's byte-heuristic fallback can
 * be exercised, or restore it (`false`). The only way a count falls back to bytes.
 */
export function setTokenizerUnavailableForTesting(unavailable: boolean): void {
  forcedUnavailable = unavailable;
}

/** Whether {@link setTokenizerUnavailableForTesting} switched tiktoken off (counts then fall back to bytes). */
export function tokenizerSwitchedOff(): boolean {
  return forcedUnavailable;
}

function checkedRanks(encoding: EncodingName, value: unknown): TokenizerRanks {
  const ranks = isRecord(value) && isRecord(value['default']) && !('bpe_ranks' in value) ? value['default'] : value;
  if (!isRecord(ranks) || typeof ranks['pat_str'] !== 'string' || typeof ranks['bpe_ranks'] !== 'string' || !isRecord(ranks['special_tokens'])) {
    throw new ValidationError(`${encoding} ranks must be js-tiktoken's rank data ({ pat_str, special_tokens, bpe_ranks }, the default export of js-tiktoken/ranks/${encoding})`);
  }
  if (ranks['special_tokens']['<|endoftext|>'] !== END_OF_TEXT[encoding]) {
    throw new ValidationError(`these ranks are not ${encoding}'s: <|endoftext|> is ${String(ranks['special_tokens']['<|endoftext|>'])}, not ${END_OF_TEXT[encoding]}`);
  }
  return ranks as unknown as TokenizerRanks;
}

function build(encoding: EncodingName, rawRanks: unknown, t0: number): LoadedEncoding {
  const ranks = checkedRanks(encoding, rawRanks);
  const out: LoadedEncoding = { encoder: new RankEncoder(ranks), pieces: new RegExp(ranks.pat_str, 'gu'), ranks, loadMs: 0 };
  out.loadMs = performance.now() - t0;
  loaded.set(encoding, out);
  return out;
}

function notLoaded(encoding: EncodingName): TokenizerNotLoadedError {
  const call = `\`await loadTokenizer('${encoding}')\` (from @nanobot/schema)`;
  if (syncFailures.has(encoding)) {
    const cause = syncFailures.get(encoding);
    const why = cause instanceof Error ? cause.message : String(cause);
    return new TokenizerNotLoadedError(encoding, `${encoding} token counts need its rank data, which could not be loaded synchronously (${why}): call ${call} once before counting`, { cause });
  }
  return new TokenizerNotLoadedError(
    encoding,
    `${encoding} token counts need its rank data, which is not loaded: in this runtime it loads asynchronously, so call ${call} once before counting (Node, Bun and Deno load it on the first count)`,
  );
}

/**
 * The loaded encoding, loading it synchronously where a synchronous source is registered (Node,
 * Bun, Deno). `null` only under {@link setTokenizerUnavailableForTesting}. Throws
 * {@link TokenizerNotLoadedError} when it is neither loaded nor loadable synchronously.
 */
export function loadedEncoding(encoding: EncodingName): LoadedEncoding | null {
  if (forcedUnavailable) return null;
  const hit = loaded.get(encoding);
  if (hit !== undefined) return hit;
  if (syncSource !== null && !syncFailures.has(encoding)) {
    const t0 = performance.now();
    try {
      return build(encoding, syncSource(encoding), t0);
    } catch (cause) {
      syncFailures.set(encoding, cause);
    }
  }
  throw notLoaded(encoding);
}

/** Whether `encoding`'s ranks are loaded (import-time checks and benchmarks read this). */
export function encodingLoaded(encoding: EncodingName): boolean {
  return loaded.has(encoding);
}

/** How long loading `encoding`'s ranks took in this process, or `undefined` before it loaded. */
export function encodingLoadMs(encoding: EncodingName): number | undefined {
  return loaded.get(encoding)?.loadMs;
}

function importRanks(encoding: EncodingName): Promise<unknown> {
  // One literal specifier per encoding: a bundler emits each rank file as a chunk of its own.
  switch (encoding) {
    case 'cl100k_base':
      return import('js-tiktoken/ranks/cl100k_base');
    case 'o200k_base':
      return import('js-tiktoken/ranks/o200k_base');
  }
}

function encodingsOf(tokenizer: TokenizerName | readonly TokenizerName[] | undefined): EncodingName[] {
  const names: readonly unknown[] = tokenizer === undefined ? ENCODINGS : typeof tokenizer === 'string' ? [tokenizer] : Array.isArray(tokenizer) ? tokenizer : [tokenizer];
  const out: EncodingName[] = [];
  for (const name of names) {
    const encoding = name === 'claude' ? 'cl100k_base' : name;
    if (encoding !== 'cl100k_base' && encoding !== 'o200k_base') {
      throw new ValidationError(`unknown tokenizer ${JSON.stringify(name)}: expected 'cl100k_base', 'o200k_base' or 'claude'`);
    }
    if (!out.includes(encoding)) out.push(encoding);
  }
  return out;
}

function loadAsync(encoding: EncodingName): Promise<LoadedEncoding> {
  const hit = loaded.get(encoding);
  if (hit !== undefined) return Promise.resolve(hit);
  let promise = pending.get(encoding);
  if (promise === undefined) {
    const t0 = performance.now();
    promise = importRanks(encoding)
      .then((ranks) => loaded.get(encoding) ?? build(encoding, ranks, t0))
      .catch((cause: unknown) => {
        const why = cause instanceof Error ? cause.message : String(cause);
        throw new TokenizerNotLoadedError(encoding, `${encoding} rank data could not be loaded: ${why}`, { cause });
      })
      .finally(() => pending.delete(encoding));
    pending.set(encoding, promise);
  }
  return promise;
}

/**
 * Loads the rank data of `tokenizer` (one name or a list; `'claude'` counts in cl100k; default:
 * every encoding) so that synchronous counts can use it. Needed once before the first count
 * wherever ranks cannot be read synchronously (Cloudflare Workers, Vercel's edge runtime,
 * browsers); harmless anywhere else. Each encoding is a dynamic `import()` a bundler turns into a
 * chunk of its own (cl100k ~1.1 MB, o200k ~2.3 MB before compression), fetched once; concurrent
 * calls share it. `options.ranks` gives the data instead (one encoding only). Rejects with
 * {@link ValidationError} for an unknown name or ranks that are not the named encoding's (or
 * differ from ranks already loaded), {@link TokenizerNotLoadedError} when the import fails.
 */
export async function loadTokenizer(tokenizer?: TokenizerName | readonly TokenizerName[], options: LoadTokenizerOptions = {}): Promise<void> {
  const encodings = encodingsOf(tokenizer);
  if (options.ranks === undefined) {
    await Promise.all(encodings.map(loadAsync));
    return;
  }
  if (encodings.length !== 1) throw new ValidationError('loadTokenizer: `ranks` are the data of one encoding: name exactly one');
  const encoding = encodings[0]!;
  const ranks = checkedRanks(encoding, options.ranks);
  const t0 = performance.now();
  const inFlight = pending.get(encoding);
  if (inFlight !== undefined) await inFlight.catch(() => undefined);
  const current = loaded.get(encoding);
  if (current !== undefined) {
    // Counts are cached per message and per piece: swapping ranks under them would mix tokenizers.
    if (current.ranks.bpe_ranks !== ranks.bpe_ranks) throw new ValidationError(`${encoding} is loaded already, with other ranks than these`);
    return;
  }
  build(encoding, ranks, t0);
}
