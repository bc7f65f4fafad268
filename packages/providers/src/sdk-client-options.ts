/**
 * What the official SDK clients (`openai`, `@anthropic-ai/sdk`) take from the caller besides the
 * endpoint and key, for the runtimes beyond Node: a Worker's or a test's own fetch, and a page's
 * explicit opt-in. Bedrock's AWS client has its own request handler and ignores both.
 */
export interface SdkClientOptions {
  /**
   * The fetch the SDK sends with (a Worker's service binding, a proxy, a test's recorder); default
   * the runtime's global `fetch`. Contract: awaited by the SDK for every request; may throw (a
   * network error, retried by our policy like any other); must not mutate the request.
   */
  fetch?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  /**
   * Let the SDK run in a browser page. Both SDKs refuse by default, because an API key in a page
   * is readable by whoever opens it: set it for a local server or a key the page's user typed.
   */
  dangerouslyAllowBrowser?: boolean;
}

/** The SDK client settings of `options` that are set, to spread into an SDK constructor. Pure. */
export function sdkClientOptions(options: SdkClientOptions): SdkClientOptions {
  return {
    ...(options.fetch !== undefined ? { fetch: options.fetch } : {}),
    ...(options.dangerouslyAllowBrowser !== undefined ? { dangerouslyAllowBrowser: options.dangerouslyAllowBrowser } : {}),
  };
}
