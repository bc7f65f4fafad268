import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { mixedFamilyHistory, requestPoints } from '@nanobot-internal/test-support';
import { createGovernor } from '../governor.js';
import { giveRoom, grownCapacity, LARGE_OBJECT_SLOTS, needsRoom, roomyCopy, type RoomyList } from './list-room.js';

describe('list room', () => {
  it('grows a list past half of the large-object size to it at once, others by half again', () => {
    expect(grownCapacity(0)).toBe(16);
    expect(grownCapacity(1_000)).toBe(1_500);
    expect(grownCapacity(6_000)).toBe(LARGE_OBJECT_SLOTS);
    expect(grownCapacity(10_000)).toBe(LARGE_OBJECT_SLOTS);
    expect(grownCapacity(20_000)).toBe(30_000);
  });

  it('gives room only to lists the engine would grow to less than the large-object size and keeps the room of', () => {
    expect(needsRoom(LARGE_OBJECT_SLOTS / 2)).toBe(false);
    expect(needsRoom(LARGE_OBJECT_SLOTS / 2 + 1)).toBe(true);
    expect(needsRoom(10_000)).toBe(true);
    expect(needsRoom(10_912)).toBe(false);
    expect(needsRoom(20_000)).toBe(false);
  });

  it('a roomy copy holds the same slots and grows like any array', () => {
    const list = Array.from({ length: 9_000 }, (_, i) => i);
    const copy = roomyCopy(list);
    expect(copy).toEqual(list);
    expect(copy).not.toBe(list);
    copy.push(9_000);
    expect(copy.length).toBe(9_001);
    expect(copy[9_000]).toBe(9_000);
    expect(list.length).toBe(9_000);
  });

  it('gives a memo list room once: the copy is kept while it grows, a new list gets its own', () => {
    const memo: RoomyList<number> = { out: Array.from({ length: 9_000 }, (_, i) => i), roomed: null };
    const first = memo.out;
    giveRoom(memo);
    const roomy = memo.out;
    expect(roomy).not.toBe(first);
    expect(roomy).toEqual(first);
    roomy!.push(1);
    giveRoom(memo);
    expect(memo.out).toBe(roomy);
    memo.out = [1, 2, 3];
    giveRoom(memo);
    expect(memo.out).toEqual([1, 2, 3]);
    memo.out = null;
    giveRoom(memo);
    expect(memo.out).toBeNull();
  });

  it('a Governor whose memo lists are given room on the way gives the requests one without memos gives', () => {
    // Every target's memo lists cross the room boundary (8,193 to 10,911 slots) within these calls.
    const history = mixedFamilyHistory(10_400, 3) as Message[];
    const points = requestPoints(history, 7_900).filter((p) => p <= 10_400);
    const calls = [...points.slice(0, 3), ...points.filter((_, i) => i % 40 === 0)];
    for (const target of ['mistral', 'gemini', 'anthropic'] as const) {
      const on = createGovernor({ target, contextWindowTokens: 2_000_000 });
      const off = createGovernor({ target, contextWindowTokens: 2_000_000, memos: false });
      for (const end of calls) {
        const a = on.govern(history.slice(0, end));
        const b = off.govern(history.slice(0, end));
        expect(a.messages).toEqual(b.messages);
        expect(JSON.stringify(a.report)).toBe(JSON.stringify(b.report));
      }
    }
  });
});
