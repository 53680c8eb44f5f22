import type { JsonValue } from './json.js';
import { ReaError } from './reaError.js';

/** A span at least this long (bytes) is read piece by piece; a shorter one is one JSON.parse. */
export const LARGE_VALUE_BYTES = 1 << 18;
/** An object or array at least this long (bytes) is assembled from its members, not parsed at once. */
const NODE_BYTES = 1 << 16;
/** Consecutive small members parsed by one JSON.parse, up to about this many bytes. */
const BATCH_BYTES = 1 << 16;
/** Bytes scanned between two checkpoints. */
const SCAN_CHECK = 1 << 16;
/** Nesting of large containers assembled piece by piece; deeper ones are parsed at once. */
const MAX_NODE_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** How {@link parseValueInSlices} decodes bytes and yields. Internal. */
export interface SpanReader {
  /** Decodes a span of the bytes to text (throws a typed error when it cannot). */
  decode: (bytes: Buffer) => string;
  /** A checkpoint: may give the event loop a turn, and throws `cancelled` when the call was cancelled. */
  pause: () => Promise<void>;
}

/** A large object or array: where it opens and closes, its separating commas, its large children. */
interface Node {
  kind: number;
  open: number;
  close: number;
  commas: number[];
  children: Node[];
}

/** What to do about malformed JSON text. Internal. */
export const MALFORMED_JSON_REMEDIATION =
  'Pass one whole JSON document: a file cut short (by a copy or a download that stopped) or edited by hand is not one; write or export it again.';

/** Malformed JSON, as `invalid_request` with reason `malformed-json`. Internal. */
export function malformed(message: string): ReaError {
  return new ReaError('invalid_request', `Malformed JSON: ${message}`, {
    details: { reason: 'malformed-json' },
    remediation: MALFORMED_JSON_REMEDIATION,
  });
}

/** JSON.parse of `text`, malformed text being `malformed-json`. Internal. */
export function parsed(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw malformed((error as Error).message);
  }
}

/** The index of the quote closing the string that opens at `start` (before `end`). Internal. */
export function stringEnd(bytes: Buffer, start: number, end = bytes.length): number {
  for (let at = bytes.indexOf(QUOTE, start + 1); at >= 0 && at < end; at = bytes.indexOf(QUOTE, at + 1)) {
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return at;
  }
  throw malformed('unterminated string');
}

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Whether `bytes[from, to)` is JSON whitespace only. Internal. */
export function blank(bytes: Buffer, from: number, to: number): boolean {
  for (let at = from; at < to; at += 1) if (!isSpace(bytes[at])) return false;
  return true;
}

/**
 * One pass over `bytes[from, to)` finding its large containers (at least {@link NODE_BYTES} long),
 * each with the commas that separate its members and its large children. Brackets are matched here;
 * everything else is left to the JSON.parse of each piece. Returns the outermost large containers.
 */
async function scan(bytes: Buffer, from: number, to: number, reader: SpanReader): Promise<Node[]> {
  const kinds: number[] = [];
  const opens: number[] = [];
  const commaBase: number[] = [];
  const childBase: number[] = [];
  const commas: number[] = [];
  const children: Node[] = [];
  let next = from + SCAN_CHECK;
  for (let at = from; at < to; at += 1) {
    if (at >= next) {
      next = at + SCAN_CHECK;
      await reader.pause();
    }
    const c = bytes[at]!;
    if (c === QUOTE) at = stringEnd(bytes, at, to);
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      kinds.push(c);
      opens.push(at);
      commaBase.push(commas.length);
      childBase.push(children.length);
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (kinds.pop() !== (c === CLOSE_OBJECT ? OPEN_OBJECT : OPEN_ARRAY))
        throw malformed(`unexpected ${String.fromCharCode(c)}`);
      const open = opens.pop()!;
      const firstComma = commaBase.pop()!;
      const firstChild = childBase.pop()!;
      const node: Node | null =
        at + 1 - open >= NODE_BYTES
          ? {
              kind: c === CLOSE_OBJECT ? OPEN_OBJECT : OPEN_ARRAY,
              open,
              close: at,
              commas: commas.slice(firstComma),
              children: children.slice(firstChild),
            }
          : null;
      commas.length = firstComma;
      children.length = firstChild;
      if (node) children.push(node);
    } else if (c === COMMA) {
      if (kinds.length === 0) throw malformed('unexpected ,');
      commas.push(at);
    }
  }
  if (kinds.length > 0) throw malformed('unexpected end of the document');
  return children;
}

function define(target: Record<string, JsonValue>, key: string, value: JsonValue): void {
  // As JSON.parse creates a member: an own data property, `__proto__` included; a later duplicate wins.
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** The key of an object member whose value (a large container) opens at `valueOpen`. */
function memberKey(bytes: Buffer, from: number, valueOpen: number, reader: SpanReader): string {
  let colon = valueOpen - 1;
  while (colon >= from && isSpace(bytes[colon])) colon -= 1;
  let key = from;
  while (key < colon && isSpace(bytes[key])) key += 1;
  if (bytes[colon] !== COLON || bytes[key] !== QUOTE) throw malformed('expected a member name and a colon');
  return parsed(reader.decode(bytes.subarray(key, colon))) as string;
}

/** Assembles a large container from JSON.parse of batches of small members and its large children. */
async function assemble(bytes: Buffer, node: Node, depth: number, reader: SpanReader): Promise<JsonValue> {
  if (depth > MAX_NODE_DEPTH) return parsed(reader.decode(bytes.subarray(node.open, node.close + 1)));
  const isArray = node.kind === OPEN_ARRAY;
  const array: JsonValue[] = [];
  const object: Record<string, JsonValue> = {};
  const parts = node.commas.length + 1;
  let batchFrom = -1;
  let batchTo = -1;
  const flush = async (): Promise<void> => {
    if (batchFrom < 0) return;
    const from = batchFrom;
    batchFrom = -1;
    // A lone empty piece is an empty container only when it is the whole container: `[x, ]` is not.
    if (parts > 1 && blank(bytes, from, batchTo)) throw malformed('missing value');
    const text = reader.decode(bytes.subarray(from, batchTo));
    if (isArray) {
      for (const item of parsed(`[${text}]`) as JsonValue[]) array.push(item);
    } else {
      const members = parsed(`{${text}}`) as Record<string, JsonValue>;
      for (const key of Object.keys(members)) define(object, key, members[key]!);
    }
    await reader.pause();
  };
  let child = 0;
  for (let part = 0; part < parts; part += 1) {
    const start = part === 0 ? node.open + 1 : node.commas[part - 1]! + 1;
    const end = part === parts - 1 ? node.close : node.commas[part]!;
    const inner = node.children[child];
    if (inner && inner.open < end) {
      child += 1;
      await flush();
      if (!blank(bytes, inner.close + 1, end)) throw malformed('unexpected text after a value');
      if (isArray) {
        if (!blank(bytes, start, inner.open)) throw malformed('unexpected text before a value');
        array.push(await assemble(bytes, inner, depth + 1, reader));
      } else {
        const key = memberKey(bytes, start, inner.open, reader);
        define(object, key, await assemble(bytes, inner, depth + 1, reader));
      }
      continue;
    }
    if (batchFrom < 0) batchFrom = start;
    batchTo = end;
    if (batchTo - batchFrom >= BATCH_BYTES) await flush();
  }
  await flush();
  return isArray ? array : object;
}

/**
 * Parses `bytes[from, to)` — one JSON value, with whitespace around it — to exactly what JSON.parse
 * gives (numbers, escapes, key order, `__proto__` and duplicate keys alike), without one long parse:
 * a span shorter than {@link LARGE_VALUE_BYTES} is one JSON.parse; a longer one is scanned for its
 * large objects and arrays, which are assembled from JSON.parse of batches of their small members,
 * with a checkpoint (`reader.pause`) every slice of scanning and after every batch. Malformed text is
 * `invalid_request` (`malformed-json`). Internal.
 */
export async function parseValueInSlices(
  bytes: Buffer,
  from: number,
  to: number,
  reader: SpanReader,
): Promise<JsonValue> {
  const whole = (): JsonValue => parsed(reader.decode(bytes.subarray(from, to)));
  if (to - from < LARGE_VALUE_BYTES) return whole();
  const roots = await scan(bytes, from, to, reader);
  const [root] = roots;
  // No large container (a long string, say), or not exactly one value: JSON.parse decides.
  if (roots.length !== 1 || !root || !blank(bytes, from, root.open) || !blank(bytes, root.close + 1, to)) {
    return whole();
  }
  return assemble(bytes, root, 0, reader);
}
