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

/** Takes each piece of a text in order; a promise returned holds the writer back until it settles. */
export type PieceSink = (piece: string) => Promise<void> | undefined;

/**
 * Writes the JSON text of `value`, as `JSON.stringify(value)` would give it (the same JSON value,
 * members in the same order), to `sink` as pieces, in order, without holding the event loop for a
 * large value: objects a member at a time, arrays a batch of items at a time, long strings a segment at
 * a time, with a turn of the event loop whenever about ten milliseconds of work have run, and waiting
 * whenever the sink asks to (a writer that has a chunk to write), so that no more than a chunk of the
 * text need exist at once. An object or array for which `knownText` gives a text (its JSON, already
 * written) is written as that text, not serialized again.
 */
export async function writeJsonInSlices(
  value: unknown,
  sink: PieceSink,
  knownText: (node: object) => string | undefined = () => undefined,
): Promise<void> {
  let sliceStart = monotonicMs();
  const pause = async (): Promise<void> => {
    if (monotonicMs() - sliceStart < SLICE_MS) return;
    await nextTurn();
    sliceStart = monotonicMs();
  };
  const put = async (piece: string): Promise<void> => {
    const waiting = sink(piece);
    if (waiting !== undefined) {
      await waiting;
      sliceStart = monotonicMs();
    }
  };
  const string = async (text: string): Promise<void> => {
    if (text.length <= SEGMENT) return put(JSON.stringify(text));
    await put('"');
    for (let from = 0; from < text.length;) {
      let to = Math.min(text.length, from + SEGMENT);
      // A surrogate pair stays in one segment: escaped apart, each half would be written as an escape.
      const last = text.charCodeAt(to - 1);
      if (to < text.length && last >= 0xd800 && last <= 0xdbff) to += 1;
      await put(JSON.stringify(text.slice(from, to)).slice(1, -1));
      from = to;
      await pause();
    }
    await put('"');
  };
  /** Whether the value is written by walking it (a string, a plain object or an array: never left out). */
  const walked = (node: unknown): boolean =>
    typeof node === 'string' ||
    (node !== null && typeof node === 'object' && (Array.isArray(node) || isPlainObject(node)));
  // Only for a value that is walked, or whose JSON text `JSON.stringify` gave (see `walked`).
  const walk = async (node: unknown): Promise<void> => {
    if (typeof node === 'string') return string(node);
    const known = knownText(node as object);
    if (known !== undefined) return put(known);
    if (Array.isArray(node)) {
      await put('[');
      for (let i = 0; i < node.length;) {
        if (i > 0) await put(',');
        const item: unknown = node[i];
        if (isLargeItem(item)) {
          await walk(item);
          i += 1;
        } else {
          let stop = i + 1;
          while (stop < Math.min(i + BATCH, node.length) && !isLargeItem(node[stop])) stop += 1;
          await put(JSON.stringify(node.slice(i, stop)).slice(1, -1));
          i = stop;
        }
        await pause();
      }
      return put(']');
    }
    await put('{');
    let first = true;
    for (const key of Object.keys(node as object)) {
      const member = (node as Record<string, unknown>)[key];
      // A member with no JSON form (undefined, a function) is left out, as JSON.stringify leaves it out.
      const text = walked(member) ? null : JSON.stringify(member);
      if (text === undefined) continue;
      await put(`${first ? '' : ','}${JSON.stringify(key)}:`);
      first = false;
      if (text === null) await walk(member);
      else await put(text);
      await pause();
    }
    return put('}');
  };
  if (walked(value)) return walk(value);
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError('The value has no JSON form.');
  return put(text);
}
