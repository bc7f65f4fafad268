import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { suggestToolName, toolLookupKey } from './suggest-tool-name.js';

describe('suggestToolName', () => {
  it('property: a suggestion is always a registered name with the same key, and unique', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 6 }), { maxLength: 8 }), fc.string({ maxLength: 6 }), (names, asked) => {
        const got = suggestToolName(asked, names);
        if (got === null) return;
        expect(names).toContain(got);
        expect(toolLookupKey(got)).toBe(toolLookupKey(asked));
        expect(names.filter((n) => toolLookupKey(n) === toolLookupKey(asked)).length).toBe(1);
      }),
    );
  });
});
