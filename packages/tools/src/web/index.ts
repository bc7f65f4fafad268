/** Web tools: web_fetch and web_search, the SSRF guard, pinned and guarded fetch, HTML to readable text. */
export { createWebFetchTool, createWebFetchSpec, UNTRUSTED_CONTENT_BANNER } from './web-fetch-tool.js';
export type { WebFetchArgs, WebFetchOptions } from './web-fetch-tool.js';
export { createWebSearchTool, createWebSearchSpec, formatSearchResults } from './web-search-tool.js';
export type { WebSearchArgs, WebSearchBackend, WebSearchHit, WebSearchOptions } from './web-search-tool.js';
export { guardedFetch } from './guarded-fetch.js';
export type { GuardedFetchOptions, GuardedResponse } from './guarded-fetch.js';
export { pinnedFetch } from './pinned-fetch.js';
export type { FetchInit, FetchLike } from './pinned-fetch.js';
export { isBlockedAddress, systemLookup, UrlRejectedError, vetUrl } from './ssrf-guard.js';
export type { HostLookup, ResolvedAddress, SsrfPolicy, VettedTarget } from './ssrf-guard.js';
export { htmlToReadableText } from './html-to-readable-text.js';
export type { ExtractMode } from './html-to-readable-text.js';
export { SsrfBlockedError } from './ssrf-blocked-error.js';
