import { describe, expect, it } from 'vitest';
import { importSpecifiers } from './workspace.js';

describe('importSpecifiers', () => {
  it('finds static, side-effect, re-export and dynamic imports', () => {
    const text = [
      "import { a } from '@nanobot/schema';",
      "import type { B } from './b.js';",
      "export { c } from '@nanobot/governor/src/c.js';",
      "import 'openai';",
      "const m = await import('@anthropic-ai/sdk');",
    ].join('\n');
    expect(importSpecifiers(text).sort()).toEqual(
      ['./b.js', '@anthropic-ai/sdk', '@nanobot/governor/src/c.js', '@nanobot/schema', 'openai'].sort(),
    );
  });

  it('ignores words that only look like imports inside strings of other shapes', () => {
    expect(importSpecifiers('const importantFrom = "x";')).toEqual([]);
  });
});
