import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseToolArguments, toolArgumentsJsonForReplay, toolArgumentsObjectForReplay } from './tool-arguments.js';
import { parsePythonJson } from './index.js';

const jsonObject = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 5 });

describe('tool arguments (properties)', () => {
  it('strict parsing returns any JSON object as JSON.parse does, and never throws', () => {
    fc.assert(fc.property(jsonObject, (obj) => {
      const text = JSON.stringify(obj);
      expect(parseToolArguments(text)).toEqual(JSON.parse(text));
    }));
    fc.assert(fc.property(fc.string(), (text) => void parseToolArguments(text)));
  });

  it('strict parsing never repairs: invalid JSON comes back as the original text', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        let valid = true;
        try {
          parsePythonJson(text.trim());
        } catch {
          valid = false;
        }
        if (!valid && text.trim() !== '') expect(parseToolArguments(text)).toBe(text);
      }),
    );
  });

  it('replay always yields a plain object, and its JSON reads back as the same object', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), jsonObject.map((o) => JSON.stringify(o)), fc.jsonValue(), jsonObject), (raw) => {
        const obj = toolArgumentsObjectForReplay(raw);
        expect(typeof obj === 'object' && obj !== null && !Array.isArray(obj)).toBe(true);
        // Compared through JSON.stringify: -0 and 0 are the same JSON number.
        expect(JSON.stringify(parsePythonJson(toolArgumentsJsonForReplay(raw)))).toBe(JSON.stringify(obj));
      }),
    );
  });

  it('replay repairs what models typically break', () => {
    expect(toolArgumentsObjectForReplay('{path:"foo.txt"}')).toEqual({ path: 'foo.txt' });
    expect(toolArgumentsObjectForReplay("{'a': 1, 'b': [1, 2,]}")).toEqual({ a: 1, b: [1, 2] });
    expect(toolArgumentsObjectForReplay('{"command": "ls -la"')).toEqual({ command: 'ls -la' });
    expect(toolArgumentsJsonForReplay('{path:"foo.txt"}')).toBe('{"path": "foo.txt"}');
  });

  it('parsePythonJson reads NaN/Infinity outside strings only', () => {
    expect(parsePythonJson('{"a": NaN, "b": "NaN", "c": -Infinity}')).toEqual({ a: NaN, b: 'NaN', c: -Infinity });
    expect(() => parsePythonJson('{"a": nan}')).toThrow();
  });
});
