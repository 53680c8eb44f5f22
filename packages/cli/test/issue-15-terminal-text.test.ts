import { describe, expect, it } from '@jest/globals';
import { escapeTerminalText, escapeTerminalValue } from '../src/terminalText.js';

describe('escapeTerminalText', () => {
  it('should make every C0, DEL, C1 and bidirectional control visible, and nothing else', () => {
    for (let code = 0; code < 0x20; code += 1) {
      expect(escapeTerminalText(`a${String.fromCharCode(code)}b`)).not.toContain(String.fromCharCode(code));
    }
    for (let code = 0x7f; code <= 0x9f; code += 1) {
      expect(escapeTerminalText(String.fromCharCode(code))).toBe(`\\x${code.toString(16)}`);
    }
    expect(escapeTerminalText('\u001b[31mred\u0007')).toBe('\\e[31mred\\x07');
    expect(escapeTerminalText('a\nb\rc\td')).toBe('a\\nb\\rc\\td');
    for (const char of ['\u061c', '\u200e', '\u200f', '\u2028', '\u2029', '\u202a', '\u202e', '\u2066', '\u2069']) {
      expect(escapeTerminalText(char)).toBe(`\\u{${char.charCodeAt(0).toString(16)}}`);
    }
    const ordinary = 'café 中文 😀 \u00a0 C:\\dir\\file ~!@#$%^&*()';
    expect(escapeTerminalText(ordinary)).toBe(ordinary);
  });

  it('should be idempotent, so escaping twice shows the same text', () => {
    const once = escapeTerminalText('x\u001b]0;t\u0007\u202e\n');
    expect(escapeTerminalText(once)).toBe(once);
  });

  it('should escape keys and values at every depth, leaving other values as they are', () => {
    expect(escapeTerminalValue({ 'k\n': ['v\u001b', { n: 1, b: true, z: null }] })).toEqual({
      'k\\n': ['v\\e', { n: 1, b: true, z: null }],
    });
  });

  it('should give back a value with nothing to escape as it is, and copy one that has, leaving it unchanged', () => {
    const clean = { symbols: [{ name: 'main', address: '0x1000' }], note: 'café', counts: { n: 2 } };
    expect(escapeTerminalValue(clean)).toBe(clean);
    const deep = {
      symbols: [
        { name: 'main', address: '0x1000' },
        { name: 'evil\u001b[2J', address: '0x2000' },
      ],
    };
    const escaped = escapeTerminalValue(deep);
    expect(escaped).not.toBe(deep);
    expect(escaped).toEqual({
      symbols: [
        { name: 'main', address: '0x1000' },
        { name: 'evil\\e[2J', address: '0x2000' },
      ],
    });
    expect(deep.symbols[1]!.name).toBe('evil\u001b[2J');
    const key = { ['k\u202e']: 1 };
    expect(escapeTerminalValue(key)).toEqual({ 'k\\u{202e}': 1 });
  });
});
