// The parser seam: the only module that imports meriyah. Everything else sees an ESTree program or a
// per-file parse failure. meriyah is pure JavaScript, so a hostile input (deep nesting, a long operator
// chain) ends in an exception this process can catch; see the README for the measurement behind it.
import { parse } from 'meriyah';

/** An ESTree node as the analysis reads it: a type, a range, a line/column location and children. */
export interface EsNode {
  type: string;
  start?: number;
  end?: number;
  loc?: { start: { line: number; column: number }; end: { line: number; column: number } };
  [key: string]: unknown;
}

/** A `//` comment at the start of a line (bundlers name modules in them). */
export interface LineComment {
  value: string;
  line: number;
  /** Offset of the comment's first character. */
  start: number;
}

/** The outcome of parsing one file: the program and its source type, or why it could not be parsed. */
export type ParseOutcome =
  | { ok: true; program: EsNode; sourceType: 'module' | 'script'; lineComments: LineComment[] }
  | { ok: false; reason: 'syntax-error' | 'too-deeply-nested'; message: string };

function attempt(source: string, module: boolean, comments: LineComment[]): EsNode {
  return parse(source, {
    onComment: (type, value, start, _end, loc) => {
      if (type === 'SingleLine' && loc.start.column === 0) {
        comments.push({ value: value.trim(), line: loc.start.line, start });
      }
    },
    module,
    next: true,
    ranges: true,
    loc: true,
    webcompat: true,
    jsx: false,
  }) as unknown as EsNode;
}

/**
 * Parses `source` as a module when `preferModule` (an `.mjs` file or one with import/export syntax),
 * else as a script, and retries with the other source type before giving up. Never throws for bad
 * input: a syntax error or an input nested beyond the parser's stack is a failed outcome.
 */
export function parseJavaScript(source: string, preferModule: boolean): ParseOutcome {
  const order = preferModule ? [true, false] : [false, true];
  let failure: ParseOutcome = { ok: false, reason: 'syntax-error', message: 'not parsed' };
  for (const module of order) {
    const lineComments: LineComment[] = [];
    try {
      const program = attempt(source, module, lineComments);
      return { ok: true, program, sourceType: module ? 'module' : 'script', lineComments };
    } catch (error) {
      if (error instanceof RangeError) {
        // Stack exhaustion: the other source type would exhaust it the same way.
        return { ok: false, reason: 'too-deeply-nested', message: 'The file nests deeper than the parser can follow.' };
      }
      if (failure.ok === false && failure.message === 'not parsed') {
        failure = {
          ok: false,
          reason: 'syntax-error',
          message: error instanceof Error ? error.message : String(error),
        };
      }
    }
  }
  return failure;
}
