/** Where a value sits in a JSON text: `[start, end)` offsets, and for objects the offset after `{`. */
interface Span {
  start: number;
  end: number;
}

/**
 * Finds the span of the value at `path` (object keys only) in a valid JSON text, or null when a key
 * is absent or a value on the way is not an object. The text must already be known to be valid.
 */
export function jsonValueSpan(text: string, path: readonly string[]): Span | null {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i += 1;
  };
  const skipString = (): string => {
    const start = i;
    i += 1;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i += 1;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const skipValue = (): void => {
    ws();
    const c = text[i];
    if (c === '"') {
      skipString();
      return;
    }
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i += 1;
      ws();
      if (text[i] === close) {
        i += 1;
        return;
      }
      for (;;) {
        if (c === '{') {
          ws();
          skipString();
          ws();
          i += 1; // ':'
        }
        skipValue();
        ws();
        if (text[i] === ',') {
          i += 1;
          continue;
        }
        i += 1; // the closing bracket
        return;
      }
    }
    while (i < text.length && !',]} \t\n\r'.includes(text[i]!)) i += 1;
  };
  ws();
  for (const key of path) {
    if (text[i] !== '{') return null;
    i += 1;
    let found = false;
    ws();
    while (text[i] !== '}') {
      ws();
      const name = skipString();
      ws();
      i += 1; // ':'
      ws();
      if (name === key) {
        found = true;
        break;
      }
      skipValue();
      ws();
      if (text[i] === ',') i += 1;
      ws();
    }
    if (!found) return null;
  }
  const start = i;
  skipValue();
  return { start, end: i };
}

function lineIndent(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** `value` serialized with `indent`, its continuation lines shifted to `base`. */
function render(value: unknown, indent: string | number, base: string): string {
  return JSON.stringify(value, null, indent).replace(/\n/g, `\n${base}`);
}

/**
 * Appends `member` as the last member of the object at `span` (`base`: the indentation of its closing
 * line). `scan` is `text` with comments masked: the comma goes after the last value, not after a comment.
 */
function appendMember(text: string, scan: string, span: Span, member: string, newline: string, base: string): string {
  const close = span.end - 1;
  const body = scan.slice(span.start + 1, close);
  if (body.trim() === '') {
    // Comments inside an empty object stay where they were, before the new member.
    const inner = text.slice(span.start + 1, close).trimEnd();
    return `${text.slice(0, span.start)}{${inner}${member}${newline}${base}}${text.slice(span.end)}`;
  }
  const last = span.start + 1 + body.trimEnd().length;
  // A comment after the last value on its line stays with that value: the new member goes after it.
  const lineEnd = text.indexOf('\n', last);
  if (lineEnd >= 0 && lineEnd < close && text.slice(last, lineEnd).trim() !== '') {
    return `${text.slice(0, last)},${text.slice(last, lineEnd)}${member}${text.slice(lineEnd)}`;
  }
  return `${text.slice(0, last)},${member}${text.slice(last)}`;
}

/**
 * Sets `servers[name] = entry` in a valid JSON text by splicing only that member, so every other
 * byte keeps its formatting. Returns null when the layout is not one this can splice (the caller then
 * re-serializes). `indent` is the file's indentation unit (0 for single-line files). For a file with
 * comments, `scan` is the text with its comments masked (same length); the comments are kept.
 */
export function spliceJsonEntry(
  text: string,
  serversKey: string,
  name: string,
  entry: unknown,
  indent: string | number,
  scan: string = text,
): string | null {
  const unit = typeof indent === 'number' ? ' '.repeat(indent) : indent;
  const newline = indent === 0 ? '' : '\n';
  const space = indent === 0 ? '' : ' ';
  const existing = jsonValueSpan(scan, [serversKey, name]);
  if (existing) {
    const base = lineIndent(text, existing.start);
    return text.slice(0, existing.start) + render(entry, indent, base) + text.slice(existing.end);
  }
  const servers = jsonValueSpan(scan, [serversKey]);
  if (servers) {
    if (scan[servers.start] !== '{') return null;
    const inner = lineIndent(text, servers.start) + unit;
    return appendMember(
      text,
      scan,
      servers,
      `${newline}${inner}${JSON.stringify(name)}:${space}${render(entry, indent, inner)}`,
      newline,
      lineIndent(text, servers.start),
    );
  }
  const root = jsonValueSpan(scan, []);
  if (!root || scan[root.start] !== '{') return null;
  const member = `${newline}${unit}${JSON.stringify(serversKey)}:${space}${render({ [name]: entry }, indent, unit)}`;
  return appendMember(text, scan, root, member, newline, '');
}
