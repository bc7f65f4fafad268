// Module-resolution hooks that append every resolved URL to $NANOBOT_TRACE_FILE (one per line),
// so a test can see which modules an import actually loaded.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  if (process.env.NANOBOT_TRACE_FILE) appendFileSync(process.env.NANOBOT_TRACE_FILE, `${result.url}\n`);
  return result;
}
