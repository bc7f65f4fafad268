import { NanobotError } from '@nanobot/schema';

/**
 * The SDK a provider needs is not installed. `openai` and `@anthropic-ai/sdk` are optional
 * peer dependencies, so an app installs only the one it uses; `packageName` says which to add.
 */
export class MissingSdkError extends NanobotError {
  /** The npm package to install, e.g. `openai`. */
  readonly packageName: string;

  constructor(packageName: string, provider: string, options: { cause?: unknown } = {}) {
    super(
      'MISSING_SDK',
      `The ${provider} provider needs the "${packageName}" package, which is not installed: run \`npm install ${packageName}\` (it is an optional peer dependency of @nanobot/providers).`,
      options,
    );
    this.packageName = packageName;
  }
}

/** Whether `error` is the module loader saying `packageName` itself cannot be found. */
export function isMissingPackage(error: unknown, packageName: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  // Node: "Cannot find package 'openai' imported from …"; only the SDK's own absence counts, not a
  // file missing inside an installed SDK.
  return typeof message === 'string' && (message.includes(`package '${packageName}'`) || message.includes(`module '${packageName}'`));
}
