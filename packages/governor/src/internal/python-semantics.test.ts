// The governor reads persisted histories with Python's semantics through @nanobot/schema's one
// Python-compatibility module: these pin the two places where the governor's former copies
// disagreed with Python (NaN is truthy; `strip()` keeps U+FEFF and removes U+001C-U+001F).
import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { safeFilename } from '../index.js';
import { callId, resultId } from './tool-calls.js';
import { isBlankText } from './content.js';

describe('Python semantics of persisted histories', () => {
  it('a NaN id is truthy, as bool(float("nan")) is in Python, and reads as str(nan)', () => {
    expect(resultId({ role: 'tool', tool_call_id: Number.NaN, content: 'x' } as unknown as Message)).toBe('nan');
    expect(callId({ id: Number.NaN })).toBe('nan');
    expect(callId({ id: 0 })).toBeNull();
    expect(callId({ id: '' })).toBeNull();
  });

  it("safeFilename is the reference's safe_filename: Python strip(), not JS trim()", () => {
    expect(safeFilename(' a<b>:c"d/e\\f|g?h*i ')).toBe('a_b__c_d_e_f_g_h_i');
    expect(safeFilename('\u001csession\u0085')).toBe('session');
    expect(safeFilename('\ufeffsession')).toBe('\ufeffsession');
  });

  it('blank text for the providers is blank by either rule (Python or JS whitespace)', () => {
    expect(isBlankText('\u001c\u0085')).toBe(true);
    expect(isBlankText('\ufeff')).toBe(true);
    expect(isBlankText(' a ')).toBe(false);
  });
});
