// Module-resolution hooks that make the packages named in $NANOBOT_HIDE_PACKAGES (comma-separated)
// uninstalled: they are resolved from an empty directory, so Node's own resolver throws its real
// "Cannot find package" error, exactly as in an app that never installed them.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const hidden = new Set((process.env.NANOBOT_HIDE_PACKAGES ?? '').split(',').filter(Boolean));
const nowhere = pathToFileURL(join(mkdtempSync(join(tmpdir(), 'nanobot-no-packages-')), 'importer.mjs')).href;

export async function resolve(specifier, context, nextResolve) {
  const bare = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
  if (hidden.has(bare)) return nextResolve(specifier, { ...context, parentURL: nowhere });
  return nextResolve(specifier, context);
}
