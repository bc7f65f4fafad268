import { afterEach, describe, expect, it } from 'vitest';
import { createToolContext } from './index.js';

const cwd = Object.getOwnPropertyDescriptor(process, 'cwd')!;
afterEach(() => Object.defineProperty(process, 'cwd', cwd));

describe('createToolContext', () => {
  it('defaults the workspace to the working directory', () => {
    expect(createToolContext().workspace).toBe(process.cwd());
  });

  it('builds a context where there is no process.cwd (Workers without nodejs_compat, browsers): workspace "/"', () => {
    Object.defineProperty(process, 'cwd', { value: undefined, configurable: true, writable: true });
    const ctx = createToolContext({ chatId: '42' });
    expect(ctx.workspace).toBe('/');
    expect(ctx.sessionKey).toBe('cli:42');
    expect(createToolContext({ workspace: '/w' }).workspace).toBe('/w');
  });
});
