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
});
