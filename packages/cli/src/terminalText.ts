/**
 * Text from a target (entry names, symbols, sections, strings, paths) made safe to print on a
 * terminal. JSON output escapes by itself; human output goes through {@link escapeTerminalText}.
 */

/** Characters a terminal acts on instead of showing: C0, DEL, C1, bidirectional controls, line separators. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\e' };

function escapeOne(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

/**
 * Replaces every character a terminal would interpret (C0 controls including newline and ESC, DEL,
 * C1 controls, bidirectional overrides and isolates, line and paragraph separators) with a visible
 * escape (`\n`, `\e`, `\x07`, `\u{202e}`), so that a name cannot move the cursor, change colours,
 * ring the bell or fake an output line. Everything else is kept as it is.
 */
export function escapeTerminalText(text: string): string {
  return text.replace(UNSAFE, escapeOne);
}

/** Whether `text` holds a character {@link escapeTerminalText} replaces. */
function unsafe(text: string): boolean {
  UNSAFE.lastIndex = 0;
  return UNSAFE.test(text);
}

/** Whether any string of a JSON-like value, object keys included, holds a character to escape. */
function needsEscape(value: unknown): boolean {
  if (typeof value === 'string') return unsafe(value);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (const item of value) if (needsEscape(item)) return true;
    return false;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (unsafe(key) || needsEscape((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

function escapedCopy<T>(value: T): T {
  if (typeof value === 'string') return escapeTerminalText(value) as T;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item: unknown) => escapedCopy(item)) as T;
  const copy: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    copy[escapeTerminalText(key)] = escapedCopy(child);
  }
  return copy as T;
}

/**
 * A JSON-like value with every string — object keys included — passed through
 * {@link escapeTerminalText}: a copy when any string needs it, else the value itself (reading a record of
 * thousands of names costs less than copying it). Human formatters take their data through this once,
 * before laying it out, and never change what they are given.
 */
export function escapeTerminalValue<T>(value: T): T {
  return needsEscape(value) ? escapedCopy(value) : value;
}
