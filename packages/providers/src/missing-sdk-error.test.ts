import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NanobotError } from '@nanobot/schema';
import { isMissingPackage, MissingSdkError } from './missing-sdk-error.js';

const packageDir = join(import.meta.dirname, '..');

/** Runs `code` in a fresh Node where the packages in `hide` are not installed; returns its stdout. */
function runWithout(hide: string[], code: string): string {
  return execFileSync(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', '--import', join(import.meta.dirname, 'test-support', 'register-hide-packages.mjs'), '--input-type=module', '-e', code],
    { cwd: packageDir, env: { ...process.env, NANOBOT_HIDE_PACKAGES: hide.join(','), OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' }, stdio: 'pipe', encoding: 'utf8' },
  );
}

const report = `
  const { createProvider, MissingSdkError } = await import('@nanobot/providers');
  const { NanobotError } = await import('@nanobot/schema');
  const out = {};
  for (const provider of ['openai', 'anthropic']) {
    try {
      const p = await createProvider({ provider, apiKey: 'k', model: 'm' });
      out[provider] = { created: p.name };
    } catch (e) {
      out[provider] = { name: e.name, code: e.code, packageName: e.packageName, message: e.message,
        typed: e instanceof MissingSdkError && e instanceof NanobotError, cause: e.cause?.code };
    }
  }
  console.log(JSON.stringify(out));
`;

describe('MissingSdkError', () => {
  it('is a NanobotError with a stable code that names the package to install', () => {
    const error = new MissingSdkError('openai', 'openai');
    expect(error).toBeInstanceOf(NanobotError);
    expect(error.code).toBe('MISSING_SDK');
    expect(error.packageName).toBe('openai');
    expect(error.message).toContain('npm install openai');
  });

  it('createProvider throws it for the missing SDK only, while the installed one still works', () => {
    const out = JSON.parse(runWithout(['openai'], report)) as Record<string, Record<string, unknown>>;
    expect(out.openai).toMatchObject({ name: 'MissingSdkError', code: 'MISSING_SDK', packageName: 'openai', typed: true, cause: 'ERR_MODULE_NOT_FOUND' });
    expect(out.openai!.message).toContain('npm install openai');
    expect(out.anthropic).toEqual({ created: 'anthropic' });
  }, 120_000);

  it('names @anthropic-ai/sdk when that one is missing', () => {
    const out = JSON.parse(runWithout(['@anthropic-ai/sdk'], report)) as Record<string, Record<string, unknown>>;
    expect(out.anthropic).toMatchObject({ code: 'MISSING_SDK', packageName: '@anthropic-ai/sdk', typed: true });
    expect(out.anthropic!.message).toContain('npm install @anthropic-ai/sdk');
    expect(out.openai).toEqual({ created: 'openai' });
  }, 120_000);

  it('counts only the SDK itself as missing, not another package or a file inside the SDK', () => {
    const notFound = (message: string) => Object.assign(new Error(message), { code: 'ERR_MODULE_NOT_FOUND' });
    expect(isMissingPackage(notFound("Cannot find package 'openai' imported from /app/x.js"), 'openai')).toBe(true);
    expect(isMissingPackage(notFound("Cannot find package 'jsonrepair' imported from /app/x.js"), 'openai')).toBe(false);
    expect(isMissingPackage(notFound("Cannot find module '/app/node_modules/openai/x.js'"), 'openai')).toBe(false);
    expect(isMissingPackage(new Error("Cannot find package 'openai'"), 'openai')).toBe(false);
    expect(isMissingPackage(null, 'openai')).toBe(false);
  });
});
