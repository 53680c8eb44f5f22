import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { locateJsonError } from '@rea/cli';

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

describe('locateJsonError', () => {
  it('should accept exactly what JSON.parse accepts', () => {
    const fragments = fc.constantFrom(
      '{',
      '}',
      '[',
      ']',
      ',',
      ':',
      '"a"',
      '"\\u00e9"',
      '"\\x"',
      '1',
      '-0.5e3',
      '01',
      'true',
      'nul',
      ' ',
      '\n',
      '"',
      "'",
    );
    fc.assert(
      fc.property(fc.array(fragments, { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        expect(locateJsonError(text) === null).toBe(parses(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('should accept every serialized JSON value, compact or indented', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 2, '\t'), (value, indent) => {
        expect(locateJsonError(JSON.stringify(value, null, indent))).toBeNull();
      }),
    );
  });

  it('should point at the first offending character by line and column', () => {
    const text = '{\n  "a": 1,\n  "b": [1, 2,, 3]\n}';
    const located = locateJsonError(text)!;
    expect(located.position).toEqual({ offset: text.indexOf(',,') + 1, line: 3, column: 14 });
    expect(locateJsonError('{"a": 1')!.position).toEqual({ offset: 7, line: 1, column: 8 });
  });
});
