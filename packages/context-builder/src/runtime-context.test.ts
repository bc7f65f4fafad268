import { describe, expect, it } from 'vitest';
import { ValidationError, type ContentPart } from '@nanobot/schema';
import { appendRuntimeContext, detachRuntimeContext, normalizeRuntimeContextBlocks, parseFrontMatter, parseHistoryEntries, detectImageMime } from './index.js';

describe('runtime context', () => {
  it('normalises: trims, drops empty content, rejects bad blocks', () => {
    expect(normalizeRuntimeContextBlocks([{ source: ' a ', content: ' x ' }, { source: 'b', content: '  ' }])).toEqual([{ source: 'a', content: 'x' }]);
    expect(() => normalizeRuntimeContextBlocks([{ source: '', content: 'x' }])).toThrow(ValidationError);
    expect(() => normalizeRuntimeContextBlocks([{ source: 'a', content: 3 }])).toThrow(/content must be a string/);
    expect(() => normalizeRuntimeContextBlocks([null])).toThrow(ValidationError);
  });

  it('appends to strings with a blank line and detaches exactly', () => {
    const [content, marker] = appendRuntimeContext('hi', [{ source: 'a', content: 'A' }, { source: 'b', content: 'B' }]);
    expect(content).toBe('hi\n\nA\n\nB');
    expect(marker).toEqual({ version: 1, sources: ['a', 'b'], suffix: 'A\n\nB' });
    expect(detachRuntimeContext(content, marker)).toBe('hi');
    expect(appendRuntimeContext('', [{ source: 'a', content: 'A' }])[0]).toBe('A');
    expect(detachRuntimeContext('A', { version: 1, sources: ['a'], suffix: 'A' })).toBe('');
    expect(detachRuntimeContext('edited A!', marker)).toBe('edited A!');
    expect(appendRuntimeContext('hi', [])).toEqual(['hi', null]);
  });

  it('appends text blocks to lists and detaches them only on an exact match', () => {
    const input = Object.freeze([{ type: 'text', text: 'x' }]);
    const [content, marker] = appendRuntimeContext(input as unknown as ContentPart[], [{ source: 's', content: 'M' }]);
    expect(content).toEqual([{ type: 'text', text: 'x' }, { type: 'text', text: 'M' }]);
    expect(input).toHaveLength(1);
    expect(detachRuntimeContext(content, marker)).toEqual([{ type: 'text', text: 'x' }]);
    expect(detachRuntimeContext([{ type: 'text', text: 'other' }], marker)).toEqual([{ type: 'text', text: 'other' }]);
  });
});

describe('parsers', () => {
  it('reads front matter with quoted values, booleans and inline JSON metadata', () => {
    const { frontMatter, body } = parseFrontMatter('---\nname: "x"\nalways: true\nmetadata: {"nanobot": {"always": true}}\ndescription: it\'s\n---\n\nBody\n');
    expect(frontMatter).toEqual({ name: 'x', always: true, metadata: { nanobot: { always: true } }, description: "it's" });
    expect(body).toBe('Body');
    expect(parseFrontMatter('no front matter').body).toBe('no front matter');
  });

  it('history reader skips bad cursors and non-string fields', () => {
    const text = [
      '{"cursor": 1, "timestamp": "t", "content": "ok", "session_key": "k"}',
      '{"cursor": -1, "timestamp": "t", "content": "neg"}',
      '{"cursor": 1.5, "timestamp": "t", "content": "float"}',
      '{"cursor": false, "timestamp": "t", "content": "bool"}',
      '{"cursor": 2, "timestamp": 5, "content": "ts"}',
      '{"cursor": 3, "timestamp": "t"}',
      '{bad',
    ].join('\n');
    const { entries, warnings } = parseHistoryEntries(text);
    expect(entries).toEqual([{ cursor: 1, timestamp: 't', content: 'ok', session_key: 'k' }]);
    expect(warnings.map((w) => w.line)).toEqual([2, 3, 4, 5, 6, 7]);
  });

  it('detects image MIME types from magic bytes', () => {
    expect(detectImageMime(Buffer.from([0xff, 0xd8, 0xff, 0]), 'x')).toBe('image/jpeg');
    expect(detectImageMime(Buffer.from('GIF89a...'), 'x')).toBe('image/gif');
    expect(detectImageMime(Buffer.from('RIFF1234WEBPVP8 '), 'x')).toBe('image/webp');
    expect(detectImageMime(Buffer.from('text'), 'x.txt')).toBeNull();
    expect(detectImageMime(Buffer.from('text'), 'x.PNG')).toBe('image/png');
  });
});

describe('injected WorkspaceFs', () => {
  it('builds from an in-memory file system', async () => {
    const { ContextBuilder } = await import('./index.js');
    const files = new Map<string, string>([
      ['/ws/USER.md', 'Name: Ada'],
      ['/ws/skills/notes/SKILL.md', '---\nname: notes\ndescription: Take notes\n---\nBody'],
    ]);
    const dirs = new Map<string, string[]>([['/ws/skills', ['notes']]]);
    const fs = {
      readText: async (p: string) => files.get(p) ?? null,
      readBytes: async (p: string) => (files.has(p) ? Buffer.from(files.get(p)!) : null),
      listDir: async (p: string) => dirs.get(p) ?? null,
      isFile: async (p: string) => files.has(p),
    };
    const builder = new ContextBuilder({ workspace: '/ws', fs, runtime: 'r', platform: 'posix', skillEnvironment: { env: {}, hasBinary: () => true } });
    const prompt = await builder.buildSystemPrompt();
    expect(prompt).toContain('## USER.md\n\nName: Ada');
    expect(prompt).toContain('- **notes** — Take notes  `notes/SKILL.md`');
  });
});

describe('mergeContent', () => {
  it('joins strings with a blank line (skipping empty sides) and otherwise concatenates block lists', async () => {
    const { mergeContent } = await import('./index.js');
    expect(mergeContent('a', 'b')).toBe('a\n\nb');
    expect(mergeContent('', 'b')).toBe('b');
    expect(mergeContent('a', null)).toEqual([{ type: 'text', text: 'a' }]);
    expect(mergeContent(null, [{ type: 'text', text: 'b' }])).toEqual([{ type: 'text', text: 'b' }]);
    expect(mergeContent('a', [{ type: 'image_url', image_url: { url: 'u' } }])).toEqual([
      { type: 'text', text: 'a' },
      { type: 'image_url', image_url: { url: 'u' } },
    ]);
  });
});
