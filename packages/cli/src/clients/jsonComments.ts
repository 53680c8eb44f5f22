/**
 * The text of a JSON-with-comments file with every `//` and `/* … *\/` comment outside strings replaced
 * by spaces (line breaks kept), so the result has the same length and line structure: offsets, lines
 * and columns found in it are those of the original text, and a plain JSON parser can read it. An
 * unterminated block comment runs to the end of the text, as it would for the client.
 */
export function maskJsonComments(text: string): string {
  let out = '';
  let i = 0;
  let copied = 0;
  const blank = (from: number, to: number): string => text.slice(from, to).replace(/[^\r\n]/g, ' ');
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      i += 1;
      while (i < text.length && text[i] !== '"' && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1;
      i += 1;
      continue;
    }
    if (c === '/' && (text[i + 1] === '/' || text[i + 1] === '*')) {
      const line = text[i + 1] === '/';
      let end = line ? text.indexOf('\n', i + 2) : text.indexOf('*/', i + 2);
      end = end < 0 ? text.length : line ? end : end + 2;
      out += text.slice(copied, i) + blank(i, end);
      copied = end;
      i = end;
      continue;
    }
    i += 1;
  }
  return out + text.slice(copied);
}

/** The text a client's JSON parser reads: comments masked for clients that accept them. */
export function jsonScanText(client: { comments: boolean }, text: string): string {
  return client.comments ? maskJsonComments(text) : text;
}
