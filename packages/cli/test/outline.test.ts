// The readable outline of a result shows a short list of scalars as it is (`access: [public, final]`),
// at any depth and inside a one-line object, instead of its size alone; a long list, or one of objects,
// is still summarised by its size, in words that agree with it (`1 item`, `2 items`, `1 field`). A
// listing near the top (a page of procedures, a layout's imports) is a table of every item it holds.
import { describe, expect, it } from '@jest/globals';
import { ReaError, toDiagnostic } from '@rea/evidence';
import { formatDiagnostic, formatResult, outline } from '../src/format.js';

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

  it('should show a listing of flat objects as a table of every item, past the line budget', () => {
    const items = Array.from({ length: 70 }, (_, i) => ({
      address: `0x${(0x1000 + i * 16).toString(16)}`,
      name: i === 3 ? 'a_rather_longer_name' : `f${i}`,
      size: i,
      ...(i === 5 ? { flags: ['x', 'y'] } : {}),
    }));
    const lines = outline({ items, total: 70, next_offset: null });
    expect(lines.slice(0, 6)).toEqual([
      '  items: (70 items)',
      '    address  name                  size  flags',
      '    0x1000   f0                    0',
      '    0x1010   f1                    1',
      '    0x1020   f2                    2',
      '    0x1030   a_rather_longer_name  3',
    ]);
    expect(lines[7]).toBe('    0x1050   f5                    5     [x, y]');
    expect(lines).toHaveLength(2 + 70 + 2);
    expect(lines.slice(-2)).toEqual(['  total: 70', '  next_offset: null']);
  });

  it('should keep objects with nested values, or a single item, as an outline', () => {
    const nested = [{ name: 'a', range: { start: 1, end: 2 } }, { name: 'b' }];
    expect(outline({ nested })).toEqual([
      '  nested: (2 items)',
      '    [0]:',
      '      name: a',
      '      range: {2 fields}',
      '    [1]:',
      '      name: b',
    ]);
    const many = Array.from({ length: 10 }, (_, i) => ({ name: `n${i}`, deep: { x: i } }));
    expect(outline({ many }).at(-1)).toBe('    … 2 more (use --format json)');
  });

  it('should print every row of a table, and still clip the other lines', () => {
    const items = Array.from({ length: 120 }, (_, i) => ({ name: `n${i}`, size: i }));
    const extra = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`k${i}`, { v: i }]));
    const text = formatResult('list_things', { items, ...extra })
      .trimEnd()
      .split('\n');
    expect(text).toContain('    n119  119');
    // 60 lines besides the 121 rows of the table (its header too), then what was left out.
    expect(text).toHaveLength(1 + 60 + 121 + 1);
    expect(text.at(-1)).toMatch(/^ {2}… \d+ more lines \(use --format json\)$/);
  });

  it('should show in a text error the details its remediation points at', () => {
    const error = new ReaError(
      'provider_selection',
      'No deep-analysis provider of the native port has the id nosuch.',
      {
        remediation: 'Pass one of the candidate ids in details.candidates as provider_id (--provider), or "auto".',
        details: {
          requested: 'nosuch',
          candidates: [
            { id: 'capstone', available: true },
            { id: 'ghidra', available: false },
          ],
        },
      },
    );
    expect(formatDiagnostic(toDiagnostic(error))).toBe(
      [
        'rea: error [provider_selection]: No deep-analysis provider of the native port has the id nosuch.',
        '  remediation: Pass one of the candidate ids in details.candidates as provider_id (--provider), or "auto".',
        '  candidates: capstone, ghidra',
        '',
      ].join('\n'),
    );
  });
});
