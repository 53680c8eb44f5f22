// The canonical writer: walks a value once and writes its RFC 8785 form as UTF-8 straight into a
// reused buffer, handing full chunks to a sink. Nothing is built per value: no strings, no arrays
// (object shapes are cached, see canonicalShapes.ts), so the cost is the walk and the byte stores.
import { MAX_BYTES_PER_UNIT, Refusal, writeNumber, writeStringUnits } from './canonicalEncode.js';
import { ShapeCache } from './canonicalShapes.js';
import { ReaError } from './reaError.js';

/**
 * Receives canonical JSON as UTF-8, in order, in chunks of at most about 90 KiB that never split a
 * character. The chunk is a view of a buffer the writer reuses: it is valid only during the call, so
 * a sink that keeps bytes copies them (hashing or writing them at once needs no copy).
 */
export type CanonicalByteSink = (bytes: Uint8Array) => void;

/** A chunk is handed over once this many bytes are written. */
const CHUNK = 1 << 16;
/** Strings and keys longer than this many code units are written in segments of this size. */
const SEGMENT = 4096;
/**
 * Room is checked only between tokens (before a value, a member, a closing bracket), when more than
 * CHUNK bytes are pending; the longest token written without a check — a string segment — fits in
 * the rest of the buffer.
 */
const CAPACITY = CHUNK + SEGMENT * MAX_BYTES_PER_UNIT + 64;
/** Below this nesting depth no cycle check is needed: a cycle nests without end, so it is caught deeper. */
const CYCLE_CHECK_DEPTH = 64;

const IGNORE: CanonicalByteSink = () => undefined;

class Writer {
  readonly buf = Buffer.allocUnsafeSlow(CAPACITY);
  readonly view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  readonly shapes = new ShapeCache();
  /** The objects and arrays being written, from CYCLE_CHECK_DEPTH down. */
  readonly deep = new Set<object>();
  sink = IGNORE;
}

function flush(w: Writer, pos: number): number {
  if (pos > 0) w.sink(w.buf.subarray(0, pos));
  return 0;
}

function writeString(w: Writer, text: string, pos: number): number {
  const buf = w.buf;
  const length = text.length;
  buf[pos++] = 0x22;
  if (length <= SEGMENT) {
    pos = writeStringUnits(buf, w.view, text, 0, length, pos);
  } else {
    for (let from = 0; from < length;) {
      let to = Math.min(length, from + SEGMENT);
      // Keep a surrogate pair in one segment, so that no chunk ends inside a character.
      const last = text.charCodeAt(to - 1);
      if (to < length && last >= 0xd800 && last <= 0xdbff) to += 1;
      if (pos > CHUNK) pos = flush(w, pos);
      pos = writeStringUnits(buf, w.view, text, from, to, pos);
      from = to;
    }
  }
  buf[pos] = 0x22;
  return pos + 1;
}

// A member head longer than a segment (a key of thousands of characters) is written like a string.
function writeLongHead(w: Writer, key: string, first: boolean, pos: number): number {
  const buf = w.buf;
  if (!first) buf[pos++] = 0x2c;
  pos = writeString(w, key, pos);
  buf[pos] = 0x3a;
  return pos + 1;
}

function notPlain(node: object): Refusal {
  return new Refusal(`${(node.constructor as { name?: string } | undefined)?.name ?? 'object'} is not a plain object`);
}

// Arrays and objects are written here rather than in functions of their own: one stack frame per
// level of nesting lets as deep a value through as V8's own JSON.stringify does.
function write(w: Writer, node: unknown, pos: number, depth: number): number {
  if (pos > CHUNK) pos = flush(w, pos);
  const buf = w.buf;
  switch (typeof node) {
    case 'string':
      return writeString(w, node, pos);
    case 'number':
      return writeNumber(buf, node, pos);
    case 'boolean':
      if (node) {
        buf[pos] = 0x74; // true
        buf[pos + 1] = 0x72;
        buf[pos + 2] = 0x75;
        buf[pos + 3] = 0x65;
        return pos + 4;
      }
      buf[pos] = 0x66; // false
      buf[pos + 1] = 0x61;
      buf[pos + 2] = 0x6c;
      buf[pos + 3] = 0x73;
      buf[pos + 4] = 0x65;
      return pos + 5;
    case 'object':
      break;
    case 'bigint':
      throw new Refusal('BigInt');
    default:
      throw new Refusal(typeof node);
  }
  if (node === null) {
    buf[pos] = 0x6e; // null
    buf[pos + 1] = 0x75;
    buf[pos + 2] = 0x6c;
    buf[pos + 3] = 0x6c;
    return pos + 4;
  }
  if (depth >= CYCLE_CHECK_DEPTH) {
    if (w.deep.has(node)) throw new Refusal('cycle');
    w.deep.add(node);
  }
  let i = 0;
  if (Array.isArray(node)) {
    buf[pos++] = 0x5b;
    const length = node.length;
    try {
      for (; i < length; i += 1) {
        if (i > 0) buf[pos++] = 0x2c;
        const item: unknown = node[i];
        if (item === undefined) throw new Refusal('undefined');
        pos = write(w, item, pos, depth + 1);
      }
    } catch (error) {
      if (error instanceof Refusal) error.steps.push(i);
      throw error;
    }
    if (pos > CHUNK) pos = flush(w, pos);
    buf[pos++] = 0x5d;
  } else {
    const proto: unknown = Object.getPrototypeOf(node);
    if (proto !== Object.prototype && proto !== null) throw notPlain(node);
    const { keys, headWords, headLengths } = w.shapes.membersOf(node);
    const view = w.view;
    const size = keys.length;
    buf[pos++] = 0x7b;
    try {
      for (; i < size; i += 1) {
        const key = keys[i]!;
        const item = (node as Record<string, unknown>)[key];
        if (item === undefined) throw new Refusal('undefined');
        // The member head, `"key":` or `,"key":`, stored as 32-bit words and written whole: up to
        // three bytes past it are overwritten, beyond the position kept, in the buffer's spare room.
        if (pos > CHUNK) pos = flush(w, pos);
        const length = headLengths[i]!;
        if (length <= SEGMENT) {
          const words = headWords[i]!;
          for (let j = 0; j < words.length; j += 1) view.setUint32(pos + 4 * j, words[j]!, true);
          pos += length;
        } else {
          pos = writeLongHead(w, key, i === 0, pos);
        }
        pos = write(w, item, pos, depth + 1);
      }
    } catch (error) {
      if (error instanceof Refusal) error.steps.push(keys[i]!);
      throw error;
    }
    if (pos > CHUNK) pos = flush(w, pos);
    buf[pos++] = 0x7d;
  }
  if (depth >= CYCLE_CHECK_DEPTH) w.deep.delete(node);
  return pos;
}

function refusal(path: string, problem: string): ReaError {
  return new ReaError('invalid_request', `Value at ${path} cannot be represented in canonical JSON: ${problem}.`, {
    details: { reason: 'not-json', path, problem },
  });
}

function pathOf(steps: ReadonlyArray<string | number>): string {
  let path = '$';
  for (let i = steps.length - 1; i >= 0; i -= 1) {
    const step = steps[i]!;
    path += typeof step === 'number' ? `[${step}]` : `.${step}`;
  }
  return path;
}

// One writer is kept between calls; a call made while it is busy (from a sink or a getter) gets its own.
let spare: Writer | undefined;

/**
 * Writes the RFC 8785 (JCS) canonical form of `value` as UTF-8 to `sink`, in chunks of bounded size
 * (see {@link CanonicalByteSink}), so that a caller can hash or write a large value without holding
 * its whole text, and without converting text to bytes.
 *
 * Refuses, with `invalid_request` (`details.reason: "not-json"`, `details.path`, `details.problem`),
 * anything JSON cannot carry: NaN and infinities, `undefined`, functions, symbols, BigInt, lone
 * surrogates in strings or keys, cycles, nesting deeper than the call stack allows, and objects that
 * are not plain objects or arrays. Bytes already passed to `sink` before a refusal are incomplete;
 * callers discard them. An error thrown by `sink` propagates unchanged.
 */
export function writeCanonicalBytes(value: unknown, sink: CanonicalByteSink): void {
  const w = spare ?? new Writer();
  spare = undefined;
  w.sink = sink;
  w.shapes.begin();
  try {
    flush(w, write(w, value, 0, 0));
  } catch (error) {
    if (error instanceof Refusal) throw refusal(pathOf(error.steps), error.problem);
    // Nesting deeper than the call stack is refused like any other value JSON tools cannot carry.
    if (error instanceof RangeError && /call stack/i.test(error.message)) throw refusal('$', 'nesting too deep');
    throw error;
  } finally {
    w.sink = IGNORE;
    w.deep.clear();
    spare = w;
  }
}
