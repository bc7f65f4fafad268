import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFileFilter, paginate } from './file-filter.js';
import { findEditMatches } from './find-edit-matches.js';
import { truncateMiddle } from '../exec/truncate-middle.js';

describe('findEditMatches', () => {
  it('property: exact matches are sorted, non-overlapping and cover exactly the needle', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'b', '\n', ' ') , maxLength: 60 }), fc.string({ unit: fc.constantFrom('a', 'b', '\n'), minLength: 1, maxLength: 4 }), (content, needle) => {
        const { kind, matches } = findEditMatches(content, needle);
        if (kind !== 'exact') return !content.includes(needle);
        let last = -1;
        for (const m of matches) {
          if (m.start < last || content.slice(m.start, m.end) !== needle) return false;
          last = m.end;
        }
        // Splicing all exact matches equals JavaScript's own replaceAll.
        let spliced = '';
        let cursor = 0;
        for (const m of matches) {
          spliced += content.slice(cursor, m.start) + '#';
          cursor = m.end;
        }
        return spliced + content.slice(cursor) === content.split(needle).join('#');
      }),
    );
  });

  it('falls back to trimmed, quote-straightened whole lines and reports line numbers', () => {
    const { kind, matches } = findEditMatches('a\n  say(\u201chi\u201d)\nb\n', 'say("hi")');
    expect(kind).toBe('normalised');
    expect(matches).toEqual([{ start: 2, end: 13, line: 2 }]);
  });
});

describe('truncateMiddle', () => {
  it('property: short text unchanged; long text keeps both ends and states the dropped count', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), fc.integer({ min: 10, max: 200 }), fc.nat(1000), (text, budget, extra) => {
        const out = truncateMiddle(text, budget, extra);
        if (text.length + extra <= budget) return out === text;
        const half = Math.floor(budget / 2);
        return (
          out.startsWith(text.slice(0, half)) &&
          out.endsWith(text.slice(text.length - half)) &&
          out.includes(`... (${(text.length + extra - budget).toLocaleString('en-US')} chars truncated) ...`)
        );
      }),
    );
  });
});

describe('file filters and pagination', () => {
  it('globs without "/" match names anywhere; with "/" the relative path', () => {
    const f = createFileFilter('*.ts', undefined);
    expect(['a.ts', 'src/b.ts', 'c.js'].filter(f)).toEqual(['a.ts', 'src/b.ts']);
    const g = createFileFilter('src/*.ts', undefined);
    expect(['a.ts', 'src/b.ts', 'src/x/c.ts'].filter(g)).toEqual(['src/b.ts']);
    expect(['a.PY', 'b.pyi', 'c.py.txt'].filter(createFileFilter(undefined, 'py'))).toEqual(['a.PY', 'b.pyi']);
  });

  it('property: pages partition the list and the note points at the next offset', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 50 }), fc.integer({ min: 1, max: 10 }), (items, limit) => {
        const seen: number[] = [];
        let offset = 0;
        for (let guard = 0; guard < 100; guard++) {
          const { page, note } = paginate(items, limit, offset);
          seen.push(...page);
          if (!note) break;
          const next = Number(/offset=(\d+)/.exec(note)![1]);
          if (next !== offset + limit) return false;
          offset = next;
        }
        return JSON.stringify(seen) === JSON.stringify(items);
      }),
    );
  });
});
