import { setImmediate as nextTurn } from 'node:timers/promises';
import { monotonicMs } from '@rea/evidence';

/** Longest stretch of serializing between two turns of the event loop (ms). */
const SLICE_MS = 10;
/** Array items serialized in one go at most. */
const BATCH = 256;
/** Strings longer than this many code units are escaped in segments of this size. */
const SEGMENT = 1 << 16;

function isPlainObject(node: object): boolean {
  const proto = Object.getPrototypeOf(node) as unknown;
  return (proto === Object.prototype || proto === null) && typeof (node as { toJSON?: unknown }).toJSON !== 'function';
}

function isLongArray(node: unknown): node is unknown[] {
  return Array.isArray(node) && node.length > BATCH;
}

function isLongString(node: unknown): boolean {
  return typeof node === 'string' && node.length > SEGMENT;
}

/**
 * Whether an array item is serialized on its own rather than in a batch: a long array or string, or
 * an object with such a member (a tool result's `content` item carrying a long text).
 */
function isLargeItem(node: unknown): boolean {
  if (isLongArray(node) || isLongString(node)) return true;
  if (node === null || typeof node !== 'object' || Array.isArray(node) || !isPlainObject(node)) return false;
  for (const member of Object.values(node)) if (isLongArray(member) || isLongString(member)) return true;
  return false;
}

/**
 * The JSON text of `value`, as `JSON.stringify(value)` would give it (the same JSON value, members in
 * the same order), written without holding the event loop for a large value: objects a member at a
 * time, arrays a batch of items at a time, long strings a segment at a time, with a turn of the event
 * loop whenever about ten milliseconds of work have run. The text comes as pieces, in order, for the
 * caller to encode and write a piece at a time. An object or array for which `knownText` gives a text
 * (its JSON, already written) is written as that text, not serialized again.
 */
export async function jsonInSlices(
  value: unknown,
  knownText: (node: object) => string | undefined = () => undefined,
): Promise<string[]> {
  const pieces: string[] = [];
  let sliceStart = monotonicMs();
  const pause = async (): Promise<void> => {
    if (monotonicMs() - sliceStart < SLICE_MS) return;
    await nextTurn();
    sliceStart = monotonicMs();
  };
  const string = async (text: string): Promise<void> => {
    if (text.length <= SEGMENT) {
      pieces.push(JSON.stringify(text));
      return;
    }
    pieces.push('"');
    for (let from = 0; from < text.length;) {
      let to = Math.min(text.length, from + SEGMENT);
      // A surrogate pair stays in one segment: escaped apart, each half would be written as an escape.
      const last = text.charCodeAt(to - 1);
      if (to < text.length && last >= 0xd800 && last <= 0xdbff) to += 1;
      pieces.push(JSON.stringify(text.slice(from, to)).slice(1, -1));
      from = to;
      await pause();
    }
    pieces.push('"');
  };
  // Returns false when the value has no JSON form (an object member that is then left out).
  const walk = async (node: unknown): Promise<boolean> => {
    if (typeof node === 'string') {
      await string(node);
      return true;
    }
    if (node !== null && typeof node === 'object') {
      const known = knownText(node);
      if (known !== undefined) {
        pieces.push(known);
        return true;
      }
    }
    if (node === null || typeof node !== 'object' || (!Array.isArray(node) && !isPlainObject(node))) {
      const text = JSON.stringify(node);
      if (text === undefined) return false;
      pieces.push(text);
      return true;
    }
    if (Array.isArray(node)) {
      pieces.push('[');
      for (let i = 0; i < node.length;) {
        if (i > 0) pieces.push(',');
        const item: unknown = node[i];
        if (isLargeItem(item)) {
          // As in an array JSON.stringify writes null for what has no JSON form.
          if (!(await walk(item))) pieces.push('null');
          i += 1;
        } else {
          let stop = i + 1;
          while (stop < Math.min(i + BATCH, node.length) && !isLargeItem(node[stop])) stop += 1;
          pieces.push(JSON.stringify(node.slice(i, stop)).slice(1, -1));
          i = stop;
        }
        await pause();
      }
      pieces.push(']');
      return true;
    }
    pieces.push('{');
    let first = true;
    for (const key of Object.keys(node)) {
      const member = (node as Record<string, unknown>)[key];
      const mark = pieces.length;
      pieces.push(first ? '' : ',', JSON.stringify(key), ':');
      if (await walk(member)) first = false;
      else pieces.length = mark;
      await pause();
    }
    pieces.push('}');
    return true;
  };
  if (!(await walk(value))) throw new TypeError('The value has no JSON form.');
  return pieces;
}
