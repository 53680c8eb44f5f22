// The readable outline of a result shows a short list of scalars as it is (`access: [public, final]`),
// at any depth and inside a one-line object, instead of its size alone; a long list, or one of objects,
// is still summarised by its size, in words that agree with it (`1 item`, `2 items`, `1 field`).
import { describe, expect, it } from '@jest/globals';
import { outline } from '../src/format.js';

describe('the outline of a result', () => {
  it('should show a short list of scalars, and summarise a long one or one of objects', () => {
    const value = {
      access: ['public', 'final'],
      a: { b: { flags: ['a', 'b'], many: Array.from({ length: 20 }, (_, i) => `f${i}`), rows: [{ x: 1 }] } },
    };
    expect(outline(value)).toEqual([
      '  access: [public, final]',
      '  a:',
      '    b:',
      '      flags: [a, b]',
      '      many: [20 items]',
      '      rows: [1 item]',
    ]);
  });

  it('should count one item or field in the singular', () => {
    expect(outline({ list: [{ x: 1 }], deep: { deeper: { one: { x: 1 }, two: [{ a: 1 }, { b: 2 }] } } })).toEqual([
      '  list: (1 item)',
      '    [0]:',
      '      x: 1',
      '  deep:',
      '    deeper:',
      '      one: {1 field}',
      '      two: [2 items]',
    ]);
  });
});
