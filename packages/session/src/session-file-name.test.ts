import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isHashedSessionFileName,
  legacySessionFileName,
  referenceSessionFileName,
  sessionFileName,
  sessionKeyFromFileName,
  sessionKeysFromFileName,
} from './session-file-name.js';

// What a file name may hold on Linux, macOS and Windows alike, with no shell quoting needed.
const PORTABLE = /^[A-Za-z0-9._%~-]+\.jsonl$/;

describe('sessionFileName', () => {
  it('keeps the key as it is where every file system takes it', () => {
    expect(sessionFileName('chat-20261130-004512-3f9a')).toBe('chat-20261130-004512-3f9a.jsonl');
    expect(sessionFileName('web:prepared-1a2b3c')).toBe('web%3aprepared-1a2b3c.jsonl');
    expect(sessionFileName('cli:direct')).toBe('cli%3adirect.jsonl');
    expect(sessionFileName('notes_v1.2')).toBe('notes_v1.2.jsonl');
  });

  it('escapes what a file system refuses or misreads: separators, spaces, non-ASCII, a leading dot, Windows device names', () => {
    expect(sessionFileName('a/b\\c')).toBe('a%2fb%5cc.jsonl');
    expect(sessionFileName('my chat?')).toBe('my%20chat%3f.jsonl');
    expect(sessionFileName('日記')).toBe('%e6%97%a5%e8%a8%98.jsonl');
    expect(sessionFileName('.hidden')).toBe('%2ehidden.jsonl');
    expect(sessionFileName('con')).toBe('%63on.jsonl');
    expect(sessionFileName('nul.txt')).toBe('%6eul.txt.jsonl');
    expect(sessionFileName('console')).toBe('console.jsonl');
    expect(sessionFileName('100%')).toBe('100%25.jsonl');
    expect(sessionFileName('a~b')).toBe('a%7eb.jsonl');
  });

  it('marks upper-case letters so that keys differing in case get names that differ case-insensitively', () => {
    expect(sessionFileName('Chat')).toBe('Chat~1.jsonl');
    expect(sessionFileName('chat')).toBe('chat.jsonl');
    expect(sessionFileName('cHat')).toBe('cHat~2.jsonl');
    expect(sessionFileName('slack:C024BE91L')).toMatch(/^slack%3aC024BE91L~[0-9a-z]+\.jsonl$/);
  });

  it('hashes a key too long for a file name, keeping a readable head', () => {
    const key = `project:${'x'.repeat(300)}`;
    const name = sessionFileName(key);
    expect(name.length).toBeLessThanOrEqual(200);
    expect(name.startsWith('project%3axxxx')).toBe(true);
    expect(isHashedSessionFileName(name)).toBe(true);
    expect(sessionKeyFromFileName(name)).toBeNull();
    expect(sessionFileName(`${key}y`)).not.toBe(name);
    expect(sessionFileName(key.toUpperCase()).toLowerCase()).not.toBe(name.toLowerCase());
  });

  it('is collision-free even case-folded, portable, short enough, and reversible (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 80 }), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 80 }), (a, b) => {
        const name = sessionFileName(a);
        expect(name).toMatch(PORTABLE);
        expect(name.length).toBeLessThanOrEqual(206);
        if (!isHashedSessionFileName(name)) expect(sessionKeyFromFileName(name)).toBe(a);
        if (a !== b) expect(sessionFileName(b).toLowerCase()).not.toBe(name.toLowerCase());
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'A', 'b', 'B', ':', '.', '%', '~', 'é'), minLength: 1, maxLength: 12 }), fc.string({ unit: fc.constantFrom('a', 'A', 'b', 'B', ':', '.', '%', '~', 'é'), minLength: 1, maxLength: 12 }), (a, b) => {
        expect(sessionKeyFromFileName(sessionFileName(a))).toBe(a);
        if (a !== b) expect(sessionFileName(a).toLowerCase()).not.toBe(sessionFileName(b).toLowerCase());
      }),
      { numRuns: 2000 },
    );
  });

  it('reads one spelling per key: a name the store would not write is not a session file', () => {
    expect(sessionKeyFromFileName('chat%3A1.jsonl')).toBeNull(); // upper-case hex: not ours
    expect(sessionKeyFromFileName('Chat.jsonl')).toBeNull(); // upper case without its mark
    expect(sessionKeyFromFileName('Chat~2.jsonl')).toBeNull(); // a mark that does not match
    expect(sessionKeyFromFileName('.chat.jsonl.tmp')).toBeNull();
  });
});

describe('older names', () => {
  it('the reference’s base64url names and legacy names are still understood', () => {
    expect(referenceSessionFileName('telegram:12345')).toBe('dGVsZWdyYW06MTIzNDU.jsonl');
    expect(sessionKeyFromFileName(referenceSessionFileName('telegram:12345'))).toBe('telegram:12345');
    expect(legacySessionFileName('telegram:12345')).toBe('telegram_12345.jsonl');
  });

  it('lists both keys a stem can stand for, readable first (the file’s own record decides)', () => {
    // `ag` is the readable name of the key "ag" and the base64url name of the key "j".
    expect(referenceSessionFileName('j')).toBe('ag.jsonl');
    expect(sessionKeysFromFileName('ag.jsonl')).toEqual(['ag', 'j']);
    expect(sessionKeysFromFileName('dGVsZWdyYW06MTIzNDU.jsonl')).toEqual(['telegram:12345']);
  });
});
