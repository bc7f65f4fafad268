import { describe, expect, it } from 'vitest';
import { createToolContext, isToolErrorResult, isToolResult, toolResult } from './index.js';

describe('toolResult', () => {
  it('builds frozen results with an explicit flag', () => {
    const ok = toolResult.text('fine');
    expect(ok.content).toBe('fine');
    expect(ok.isError).toBe(false);
    expect(Object.isFrozen(ok)).toBe(true);
    const err = toolResult.error('Error: nope');
    expect(isToolErrorResult(err)).toBe(true);
    expect(isToolErrorResult(ok)).toBe(false);
    expect(toolResult.of('x', true).isError).toBe(true);
  });

  it('plain text is never an error, whatever it starts with', () => {
    expect(isToolErrorResult('Error: looks like one')).toBe(false);
    expect(isToolResult('Error: looks like one')).toBe(false);
    expect(isToolResult({ content: 'x', isError: true })).toBe(false);
  });

  it('recognises results from another copy of the package (Symbol.for brand)', () => {
    const foreign = { content: 'x', isError: true, [Symbol.for('nanobot.toolResult')]: true };
    expect(isToolErrorResult(foreign)).toBe(true);
  });

  it('images become data-URL blocks; content lists are copied', () => {
    const blocks = [{ type: 'text', text: 'a' }];
    const r = toolResult.content(blocks);
    blocks.push({ type: 'text', text: 'b' });
    expect(r.content).toEqual([{ type: 'text', text: 'a' }]);
    expect(toolResult.image({ data: 'QUJD', mimeType: 'image/jpeg' }).content).toEqual([
      { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,QUJD' } },
    ]);
  });

  it('rejects content that is neither text nor blocks', () => {
    expect(() => toolResult.text(5 as never)).toThrow(TypeError);
  });
});

describe('createToolContext', () => {
  it('fills defaults and freezes', () => {
    const ctx = createToolContext({ channel: 'telegram', chatId: '42', attributes: { turn: 1 } });
    expect(ctx.sessionKey).toBe('telegram:42');
    expect(ctx.workspace).toBe(process.cwd());
    expect(ctx.signal.aborted).toBe(false);
    expect(() => ctx.emit({ type: 'progress' })).not.toThrow();
    expect(Object.isFrozen(ctx)).toBe(true);
    expect(Object.isFrozen(ctx.attributes)).toBe(true);
    expect(createToolContext().sessionKey).toBe('cli:direct');
  });
});
