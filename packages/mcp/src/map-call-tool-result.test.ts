import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mapCallToolResult, type McpCallToolResultLike } from './map-call-tool-result.js';

function frozen(value: McpCallToolResultLike): McpCallToolResultLike {
  return JSON.parse(JSON.stringify(value), (_key, inner) => (inner && typeof inner === 'object' ? Object.freeze(inner) : inner));
}

describe('mapCallToolResult', () => {
  it('joins text blocks into one string', () => {
    const out = mapCallToolResult(frozen({ content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }));
    expect(out).toEqual({ content: 'a\nb', isError: false });
  });

  it('turns images into image_url parts with a data URL and keeps the order', () => {
    const out = mapCallToolResult(
      frozen({ content: [{ type: 'text', text: 'cap' }, { type: 'image', data: 'AAA=', mimeType: 'image/jpeg' }] }),
    );
    expect(out.content).toEqual([
      { type: 'text', text: 'cap' },
      { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,AAA=' } },
    ]);
  });

  it('adds structured content as JSON unless a text block already carries it', () => {
    expect(mapCallToolResult(frozen({ content: [], structuredContent: { n: 1 } }))).toEqual({
      content: '{"n":1}',
      isError: false,
      structuredContent: { n: 1 },
    });
    expect(
      mapCallToolResult(frozen({ content: [{ type: 'text', text: '{ "n": 1 }' }], structuredContent: { n: 1 } })).content,
    ).toBe('{ "n": 1 }');
    expect(
      mapCallToolResult(frozen({ content: [{ type: 'text', text: 'summary' }], structuredContent: { n: 1 } })).content,
    ).toBe('summary\n{"n":1}');
  });

  it('sends structured content once when the text mirrors it (memory and filesystem server shapes)', () => {
    const entities = [{ name: 'Dana', entityType: 'person', observations: ['leads the team'] }];
    // @modelcontextprotocol/server-memory: the text is the array's JSON, the structure wraps it.
    const memory = mapCallToolResult(frozen({ content: [{ type: 'text', text: JSON.stringify(entities, null, 2) }], structuredContent: { entities } }));
    expect(memory.content).toBe(JSON.stringify(entities, null, 2));
    expect(memory.structuredContent).toEqual({ entities });
    // @modelcontextprotocol/server-filesystem: a readable text, and the same text as { content }.
    const listing = '[FILE] a.txt\n[DIR] src';
    expect(mapCallToolResult(frozen({ content: [{ type: 'text', text: listing }], structuredContent: { content: listing } })).content).toBe(listing);
    // A readable rendering of every value is a mirror too.
    expect(mapCallToolResult(frozen({ content: [{ type: 'text', text: 'Dana (person): leads the team; 3 mentions' }], structuredContent: { name: 'Dana', type: 'person', note: 'leads the team', mentions: 3 } })).content).toBe(
      'Dana (person): leads the team; 3 mentions',
    );
  });

  it('keeps the JSON when the text leaves data out', () => {
    expect(mapCallToolResult(frozen({ content: [{ type: 'text', text: 'Found 12 files' }], structuredContent: { count: 1 } })).content).toBe('Found 12 files\n{"count":1}');
    expect(mapCallToolResult(frozen({ content: [{ type: 'text', text: 'Dana' }], structuredContent: { name: 'Dana', role: 'lead' } })).content).toBe('Dana\n{"name":"Dana","role":"lead"}');
    expect(mapCallToolResult(frozen({ content: [{ type: 'text', text: 'done' }], structuredContent: { ok: false } })).content).toBe('done\n{"ok":false}');
  });

  it('never loses a value of the structure (property)', () => {
    const word = fc.stringMatching(/^[a-z]{1,8}( [a-z]{1,8})?$/);
    const structure = fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.oneof(word, fc.integer({ min: -999, max: 999 }), fc.array(word, { maxLength: 3 })), { maxKeys: 4 });
    fc.assert(
      fc.property(structure, fc.oneof(word, fc.constant('')), fc.boolean(), (structured, summary, pretty) => {
        const text = pretty ? JSON.stringify(structured, null, 2) : summary;
        const out = mapCallToolResult(frozen({ content: text ? [{ type: 'text', text }] : [], structuredContent: structured }));
        const said = typeof out.content === 'string' ? out.content : '';
        const leaves = Object.values(structured).flat().map(String);
        for (const leaf of leaves) expect(said).toContain(leaf);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the isError flag and gives an empty error a readable text', () => {
    expect(mapCallToolResult(frozen({ content: [{ type: 'text', text: 'nope' }], isError: true }))).toEqual({
      content: 'nope',
      isError: true,
    });
    expect(mapCallToolResult(frozen({ content: [], isError: true })).content).toMatch(/^Error: /);
  });

  it('leaves an empty success empty for the registry to describe', () => {
    expect(mapCallToolResult(frozen({ content: [] }))).toEqual({ content: '', isError: false });
    expect(mapCallToolResult(frozen({}))).toEqual({ content: '', isError: false });
  });

  it('describes blocks a chat model cannot take', () => {
    const out = mapCallToolResult(
      frozen({
        content: [
          { type: 'audio', data: 'AAA=', mimeType: 'audio/wav' },
          { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' },
          { type: 'resource', resource: { uri: 'file:///b.txt', text: 'hello' } },
          { type: 'resource', resource: { uri: 'file:///c.bin', blob: 'AAA=', mimeType: 'application/zip' } },
          { type: 'hologram' },
        ],
      }),
    );
    expect(out.content).toBe(
      [
        '[audio audio/wav omitted: not supported in tool results]',
        '[resource link: a.txt <file:///a.txt>]',
        '[resource file:///b.txt]\nhello',
        '[binary resource file:///c.bin (application/zip) omitted]',
        '[unsupported MCP content block: hologram]',
      ].join('\n'),
    );
  });

  it('shows embedded image resources as images', () => {
    const out = mapCallToolResult(
      frozen({ content: [{ type: 'resource', resource: { uri: 'x:/p.png', blob: 'AAA=', mimeType: 'image/png' } }] }),
    );
    expect(out.content).toEqual([{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAA=' } }]);
  });
});
