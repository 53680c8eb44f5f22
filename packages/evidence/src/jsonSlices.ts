import { monotonicMs } from './clock.js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { JsonValue } from './json.js';
import { LARGE_VALUE_BYTES, blank, malformed, parseValueInSlices, parsed, stringEnd } from './jsonLargeValue.js';
import type { SpanReader } from './jsonLargeValue.js';
import { throwIfAborted } from './reaError.js';

/** Longest stretch of parsing between two turns of the event loop (ms). */
const SLICE_MS = 10;
/** Bytes scanned between two clock reads. */
const SCAN_CHECK = 1 << 16;

const QUOTE = 0x22;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Options of {@link parseJsonInSlices}. */
export interface JsonSlicesOptions {
  signal?: AbortSignal | undefined;
  /** Named by `cancelled` when the signal is aborted meanwhile. */
  phase: string;
  /** Decodes a span of the bytes to text (throws a typed error when it cannot). */
  decode: (bytes: Buffer) => string;
  /** Longest stretch between two turns (ms); 0 turns at every checkpoint. */
  sliceMs?: number;
}

/** One array that is a member of the top-level object: its key and the spans of its items. */
interface MemberArray {
  key: string;
  open: number;
  close: number;
  items: Array<[number, number]>;
}

/**
 * Parses JSON `bytes` (UTF-8) to the value `JSON.parse` gives, without holding the event loop for a
 * large document: when the top-level value is an object, the items of its array members (a bundle's
 * records) are found by a scan of the bytes and parsed one at a time, a large item (or any other
 * large value) a piece at a time (see {@link parseValueInSlices}), with a turn of the event loop
 * whenever a slice of work has run, and `cancelled` (naming `phase`) when `signal` is aborted
 * meanwhile. Malformed text is `invalid_request` (`malformed-json`).
 */
export async function parseJsonInSlices(bytes: Buffer, options: JsonSlicesOptions): Promise<JsonValue> {
  const { signal, phase, decode, sliceMs = SLICE_MS } = options;
  let sliceStart = monotonicMs();
  const pause = async (): Promise<void> => {
    if (monotonicMs() - sliceStart < sliceMs && !signal?.aborted) return;
    await nextTurn();
    throwIfAborted(signal, phase);
    sliceStart = monotonicMs();
  };
  const reader: SpanReader = { decode, pause };
  await nextTurn();
  throwIfAborted(signal, phase);
  let start = 0;
  while (
    start < bytes.length &&
    (bytes[start] === 0x20 || bytes[start] === 0x0a || bytes[start] === 0x0d || bytes[start] === 0x09)
  )
    start += 1;
  if (bytes[start] !== OPEN_OBJECT) return parseValueInSlices(bytes, 0, bytes.length, reader);
  const members: MemberArray[] = [];
  const stack: number[] = [];
  let key = '';
  // Every key of the top-level object, to tell whether a key is given twice.
  const topKeys: string[] = [];
  let expectKey = false;
  let current: MemberArray | null = null;
  let itemStart = 0;
  let next = start + SCAN_CHECK;
  let end = -1;
  for (let at = start; at < bytes.length && end < 0; at += 1) {
    if (at >= next) {
      next = at + SCAN_CHECK;
      await pause();
    }
    const c = bytes[at]!;
    if (c === QUOTE) {
      const close = stringEnd(bytes, at);
      if (stack.length === 1) key = decode(bytes.subarray(at, close + 1));
      if (stack.length === 1 && expectKey) topKeys.push(key);
      expectKey = false;
      at = close;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      stack.push(c);
      expectKey = stack.length === 1;
      if (stack.length === 2 && c === OPEN_ARRAY) {
        current = { key, open: at, close: -1, items: [] };
        itemStart = at + 1;
      }
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (stack.pop() !== (c === CLOSE_OBJECT ? OPEN_OBJECT : OPEN_ARRAY))
        throw malformed(`unexpected ${String.fromCharCode(c)}`);
      if (current && stack.length === 1) {
        current.items.push([itemStart, at]);
        current.close = at;
        members.push(current);
        current = null;
      } else if (stack.length === 0) end = at;
    } else if (c === COMMA && current && stack.length === 2) {
      current.items.push([itemStart, at]);
      itemStart = at + 1;
    } else if (c === COMMA && stack.length === 1) expectKey = true;
  }
  if (end < 0) throw malformed('unexpected end of the document');
  // The object with its array members emptied, then each member's items a slice at a time.
  const skeleton: Buffer[] = [];
  let from = 0;
  for (const member of members) {
    skeleton.push(bytes.subarray(from, member.open + 1));
    from = member.close;
  }
  skeleton.push(bytes.subarray(from));
  const rest = Buffer.concat(skeleton);
  const value = (await parseValueInSlices(rest, 0, rest.length, reader)) as Record<string, JsonValue>;
  const keys = members.map((member) => parsed(member.key) as string);
  // A key given twice is resolved as JSON.parse resolves it (the last one wins, where the first one
  // stood): the document is then read as any other value.
  if (new Set(topKeys.map((text) => parsed(text))).size !== topKeys.length) {
    return parseValueInSlices(bytes, 0, bytes.length, reader);
  }
  for (const [index, member] of members.entries()) {
    const items: JsonValue[] = [];
    const [first] = member.items;
    const empty = member.items.length === 1 && first && blank(bytes, first[0], first[1]);
    if (!empty) {
      for (const [itemFrom, itemTo] of member.items) {
        await pause();
        // A large item (one big record) is itself read a piece at a time.
        items.push(
          itemTo - itemFrom < LARGE_VALUE_BYTES
            ? parsed(decode(bytes.subarray(itemFrom, itemTo)))
            : await parseValueInSlices(bytes, itemFrom, itemTo, reader),
        );
      }
    }
    Object.defineProperty(value, keys[index]!, { value: items, writable: true, enumerable: true, configurable: true });
  }
  return value;
}
