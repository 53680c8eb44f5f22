// UTF-8 JSON parsed a slice at a time: a large ASAR header (megabytes of JSON) must not hold the event
// loop in one decode and one JSON.parse call. Small values are still decoded and parsed by JSON.parse;
// only the members and items of large objects and arrays are delimited here, on the bytes (every
// delimiter is ASCII, which never occurs inside a multi-byte sequence, so each piece decodes as it
// would within the whole text), and the result and what is refused match JSON.parse of the text.
import type { Work } from '../layout/cooperative.js';

/** Spans up to this many bytes are decoded and parsed by one JSON.parse call. */
const WHOLE = 64 * 1024;
/**
 * Containers nested deeper than this are parsed whole: each level delimited here is scanned once more,
 * so the depth bounds the extra work (hostile nesting cannot make it quadratic).
 */
const MAX_SLICED_DEPTH = 12;
/** Bytes scanned between two checkpoints. */
const SCAN_STEP = 64 * 1024;

const isSpace = (code: number): boolean => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;

function skipSpace(bytes: Buffer, at: number, end: number): number {
  while (at < end && isSpace(bytes[at]!)) at += 1;
  return at;
}

function invalid(at: number): SyntaxError {
  return new SyntaxError(`Unexpected token in JSON at position ${at}`);
}

/** The end (exclusive) of the value starting at `at`: a string, a container, or a bare literal. */
function* valueEnd(bytes: Buffer, at: number, end: number): Generator<undefined, number, void> {
  let depth = 0;
  let inString = false;
  for (let i = at; i < end; i += 1) {
    if ((i - at) % SCAN_STEP === SCAN_STEP - 1) yield;
    const code = bytes[i]!;
    if (inString) {
      if (code === 0x5c) i += 1;
      else if (code === 0x22) {
        inString = false;
        if (depth === 0) return i + 1;
      }
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) depth += 1;
    else if (code === 0x7d || code === 0x5d) {
      if (depth === 0) return i;
      depth -= 1;
      if (depth === 0) return i + 1;
    } else if (depth === 0 && (code === 0x2c || isSpace(code))) return i;
  }
  if (inString || depth > 0) throw invalid(end);
  return end;
}

/** Parses the value in `bytes[start, end)` (surrounding whitespace allowed), as JSON.parse would. */
function* parseSpan(bytes: Buffer, start: number, end: number, depth: number): Work<unknown> {
  const at = skipSpace(bytes, start, end);
  // Never reads past the span: a span is delimited inside a larger text.
  const codeAt = (k: number): number => (k < end ? bytes[k]! : -1);
  const open = codeAt(at);
  if (end - start <= WHOLE || depth > MAX_SLICED_DEPTH || (open !== 0x7b && open !== 0x5b)) {
    return JSON.parse(bytes.toString('utf8', start, end));
  }
  yield;
  const close = open === 0x7b ? 0x7d : 0x5d;
  const object: Record<string, unknown> = {};
  const array: unknown[] = [];
  let i = skipSpace(bytes, at + 1, end);
  if (codeAt(i) === close) i += 1;
  else {
    for (;;) {
      let key = '';
      if (open === 0x7b) {
        if (codeAt(i) !== 0x22) throw invalid(i);
        const keyEnd = yield* valueEnd(bytes, i, end);
        key = JSON.parse(bytes.toString('utf8', i, keyEnd)) as string;
        i = skipSpace(bytes, keyEnd, end);
        if (codeAt(i) !== 0x3a) throw invalid(i);
        i = skipSpace(bytes, i + 1, end);
      }
      const valueStop = yield* valueEnd(bytes, i, end);
      if (valueStop === i) throw invalid(i);
      const value = yield* parseSpan(bytes, i, valueStop, depth + 1);
      // As JSON.parse defines members: "__proto__" is an own member, never the prototype.
      if (open === 0x7b) {
        Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
      } else array.push(value);
      // A checkpoint per member: members below SCAN_STEP are scanned and parsed without one of their own,
      // and a large container can hold thousands of them.
      yield;
      i = skipSpace(bytes, valueStop, end);
      const next = codeAt(i);
      i += 1;
      if (next === close) break;
      if (next !== 0x2c) throw invalid(i - 1);
      i = skipSpace(bytes, i, end);
    }
  }
  if (skipSpace(bytes, i, end) !== end) throw invalid(i);
  return open === 0x7b ? object : array;
}

/**
 * Parses the UTF-8 JSON `bytes` to the value JSON.parse gives for their text, refusing what it refuses (a `SyntaxError`), as
 * work for the cooperative driver: the members of large objects and arrays are delimited and parsed
 * one by one, with a checkpoint every so many bytes scanned.
 */
export function* parseJsonWork(bytes: Buffer): Work<unknown> {
  yield 'header';
  return yield* parseSpan(bytes, 0, bytes.length, 0);
}
