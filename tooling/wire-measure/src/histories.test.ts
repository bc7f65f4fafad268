import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturesDir, loadHistories, requestPoints, samplePoints, toolNames } from './histories.js';
import { MODEL_SWITCH_FIXTURES, renderFixture } from './model-switch-fixtures.js';

describe('histories', () => {
  it('loads the 16 recorded sessions and every model-switch history', () => {
    const all = loadHistories();
    expect(all.filter((h) => h.kind === 'recorded')).toHaveLength(16);
    expect(all.filter((h) => h.kind === 'model-switch').map((h) => h.name).sort()).toEqual(Object.keys(MODEL_SWITCH_FIXTURES).sort());
  });

  it('keeps the committed model-switch fixtures exactly as the module renders them', () => {
    for (const [name, f] of Object.entries(MODEL_SWITCH_FIXTURES)) {
      expect(readFileSync(join(fixturesDir(), 'model-switch', `${name}.json`), 'utf8'), name).toBe(renderFixture(f));
    }
  });

  it('puts request points after user messages, and in model-switch histories also after each run of tool results', () => {
    const messages = [{ role: 'user', content: 'a' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function' as const, function: { name: 'f', arguments: '{}' } }, { id: 'd', type: 'function' as const, function: { name: 'g-h', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'c', content: 'r' }, { role: 'tool', tool_call_id: 'd', content: 'r' }, { role: 'assistant', content: 'x' }, { role: 'user', content: 'b' }];
    expect(requestPoints({ name: 'r', kind: 'recorded', producer: 'x', messages })).toEqual([1, 6]);
    expect(requestPoints({ name: 's', kind: 'model-switch', producer: 'x', messages })).toEqual([1, 4, 6]);
    expect(samplePoints([1, 2, 3, 4, 5, 6, 7], 3)).toEqual([1, 4, 7]);
    expect(toolNames(messages)).toEqual(['f', 'g-h']);
  });
});
