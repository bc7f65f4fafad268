// A real `MockLanguageModelV3` from `ai/test` that answers every call with one text reply and
// takes every URL itself (so the SDK downloads nothing: no test reaches the network).
import type { LanguageModelMiddleware } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

type GenerateResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapGenerate']>>>;

/** One generate result with `content` (a text reply by default). */
export function generateResult(content: GenerateResult['content'] = [{ type: 'text', text: 'done' }]): GenerateResult {
  return {
    content,
    finishReason: { unified: content.some((c) => c.type === 'tool-call') ? 'tool-calls' : 'stop', raw: undefined },
    usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
    warnings: [],
  };
}

/** A mock model that replies with `results` in turn (the last one repeated). */
export function mockModel(...results: GenerateResult[]): MockLanguageModelV3 {
  const queue = results.length > 0 ? results : [generateResult()];
  let i = 0;
  return new MockLanguageModelV3({
    supportedUrls: { '*/*': [/.*/], 'image/*': [/.*/] },
    doGenerate: async () => queue[Math.min(i++, queue.length - 1)],
  });
}

/** A download function that refuses every download the SDK would make. */
export async function noDownload(planned: { url: URL; isUrlSupportedByModel: boolean }[]): Promise<null[]> {
  if (planned.some((p) => !p.isUrlSupportedByModel)) throw new Error('no test downloads anything');
  return planned.map(() => null);
}
