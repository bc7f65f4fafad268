import type { Tool } from '@nanobot/tools-core';
import { toTool } from '../tool/to-tool.js';
import type { BuiltinToolSpec } from '../tool/builtin-tool.js';
import { errorMessage, fail, ok } from '../tool/builtin-tool.js';

/** One search hit. */
export interface WebSearchHit {
  readonly title: string;
  readonly url: string;
  readonly snippet?: string;
}

/**
 * A search provider (Brave, Tavily, SearXNG, a test double…). `search` is awaited, may throw
 * (the model reads `Error: web search failed: …`), must not mutate its arguments, and should
 * honour `signal`.
 */
export interface WebSearchBackend {
  /** Shown in errors, e.g. `brave`. */
  readonly name: string;
  /** True for backends that must not be called in parallel (the reference's DuckDuckGo). */
  readonly exclusive?: boolean;
  search(query: string, options: { count: number; signal?: AbortSignal }): Promise<readonly WebSearchHit[]>;
}

/** Arguments of `web_search`. */
export interface WebSearchArgs {
  query: string;
  count?: number;
}

/** Options of `createWebSearchTool`. */
export interface WebSearchOptions {
  /** Without one the tool stays registered and tells the model search is not configured. */
  backend?: WebSearchBackend;
  /** Results when `count` is absent (default 5). */
  defaultCount?: number;
}

/** The reference's result layout: `Results for: <q>` then `<i>. <title>\n   <url>\n   <snippet>`. */
export function formatSearchResults(query: string, hits: readonly WebSearchHit[]): string {
  if (hits.length === 0) return `No results for: ${query}`;
  const lines = [`Results for: ${query}\n`];
  hits.forEach((hit, i) => {
    let item = `${i + 1}. ${hit.title}\n   ${hit.url}`;
    if (hit.snippet) item += `\n   ${hit.snippet}`;
    lines.push(item);
  });
  return lines.join('\n');
}

/**
 * `web_search` over a pluggable backend. Read-only; exclusive only when the backend says so.
 */
export function createWebSearchSpec(options: WebSearchOptions = {}): BuiltinToolSpec<WebSearchArgs> {
  const defaultCount = options.defaultCount ?? 5;
  const backend = options.backend;
  return {
    name: 'web_search',
    description: 'Search the web. Returns titles, URLs and snippets.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Search query' },
        count: { type: 'integer', description: `Number of results (1-10, default ${defaultCount})`, minimum: 1, maximum: 10 },
      },
      required: ['query'],
      additionalProperties: false,
    },
    readOnly: true,
    exclusive: backend?.exclusive === true,
    // The reference's compactable set: the result can be had again by calling the tool.
    compactable: true,
    scopes: ['core', 'subagent'],
    async run(args, ctx) {
      const query = typeof args.query === 'string' ? args.query.trim() : '';
      if (!query) return fail('Error: query must be a non-empty string');
      if (!backend) {
        return fail(
          'Error: web_search is not configured: no search backend is set up. Answer from what you know, ' +
            'or use web_fetch on a URL you are confident about.',
        );
      }
      const count = Math.min(10, Math.max(1, Math.floor(args.count ?? defaultCount)));
      let hits: readonly WebSearchHit[];
      try {
        hits = await backend.search(query, { count, signal: ctx.signal });
      } catch (error) {
        return fail(`Error: web search failed (${backend.name}): ${errorMessage(error)}`);
      }
      return ok(formatSearchResults(query, hits.slice(0, count)));
    },
  };
}

/** The `web_search` tool, ready to register (see `createWebSearchSpec` for its behaviour). */
export function createWebSearchTool(options: WebSearchOptions = {}): Tool<WebSearchArgs> {
  return toTool(createWebSearchSpec(options));
}
