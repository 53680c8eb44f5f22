import { ReaError } from '@rea/evidence';

/** Where a JSON or TOML text stops being valid: 0-based offset, 1-based line and column. */
export interface TextPosition {
  offset: number;
  line: number;
  column: number;
}

/** The 1-based line and column of a 0-based offset in `text`. */
export function positionAt(text: string, offset: number): TextPosition {
  const clamped = Math.max(0, Math.min(offset, text.length));
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < clamped; i += 1) {
    if (text.charCodeAt(i) === 10) {
      line += 1;
      lineStart = i + 1;
    }
  }
  return { offset: clamped, line, column: clamped - lineStart + 1 };
}

/**
 * Finds the first syntax error of a JSON text with a small recursive-descent scanner, because the
 * engine's own messages do not reliably carry a position. Returns null for valid JSON.
 */
export function locateJsonError(text: string): { position: TextPosition; expected: string } | null {
  let i = 0;
  const fail = (expected: string): never => {
    throw Object.assign(new Error(expected), { at: i });
  };
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i += 1;
  };
  const literal = (word: string): void => {
    if (text.startsWith(word, i)) i += word.length;
    else fail(`a value`);
  };
  const string = (): void => {
    i += 1;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        i += 1;
        return;
      }
      if (c < 32) fail('a closing quote or an escaped control character');
      if (c === 92) {
        const next = text[i + 1];
        if (next === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail('four hex digits after \\u');
          i += 6;
          continue;
        }
        if (next === undefined || !'"\\/bfnrt'.includes(next)) fail('a valid escape');
        i += 2;
        continue;
      }
      i += 1;
    }
    fail('a closing quote');
  };
  const value = (depth: number): void => {
    if (depth > 512) fail('less nesting');
    ws();
    const c = text[i];
    if (c === '{') {
      i += 1;
      ws();
      if (text[i] === '}') {
        i += 1;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('a property name in double quotes');
        string();
        ws();
        if (text[i] !== ':') fail("':'");
        i += 1;
        value(depth + 1);
        ws();
        if (text[i] === ',') {
          i += 1;
          continue;
        }
        if (text[i] === '}') {
          i += 1;
          return;
        }
        fail("',' or '}'");
      }
    }
    if (c === '[') {
      i += 1;
      ws();
      if (text[i] === ']') {
        i += 1;
        return;
      }
      for (;;) {
        value(depth + 1);
        ws();
        if (text[i] === ',') {
          i += 1;
          continue;
        }
        if (text[i] === ']') {
          i += 1;
          return;
        }
        fail("',' or ']'");
      }
    }
    if (c === '"') return string();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (m === null) fail('a value');
    i += m![0].length;
  };
  try {
    value(0);
    ws();
    if (i < text.length) fail('the end of the text');
    return null;
  } catch (error) {
    const at = (error as { at?: number }).at ?? i;
    return { position: positionAt(text, at), expected: (error as Error).message };
  }
}

/**
 * Parses JSON text or throws `invalid_request` naming `what`, with the line and column of the first
 * error in `details.position`.
 */
export function parseJsonText(text: string, what: string): unknown {
  const located = locateJsonError(text);
  if (located === null) return JSON.parse(text) as unknown;
  const { position, expected } = located;
  throw new ReaError(
    'invalid_request',
    `${what} is not valid JSON: expected ${expected} at line ${position.line}, column ${position.column}.`,
    { details: { reason: 'invalid-json', position: { ...position } } },
  );
}
