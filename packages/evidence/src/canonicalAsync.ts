import { monotonicMs } from './clock.js';
import { createHash } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { writeCanonicalBytes } from './canonicalBytes.js';
import { canonicalSha256 } from './canonicalJson.js';
import { isReaError, throwIfAborted } from './reaError.js';

/** Array items hashed between two looks at the clock. */
const BATCH = 256;
/** Longest stretch of hashing between two turns of the event loop (ms). */
const SLICE_MS = 10;

/** Options of {@link canonicalSha256Async}. */
export interface CanonicalAsyncOptions {
  /** Checked at every turn of the event loop; an aborted signal throws `cancelled` (`phase: "sealing"`). */
  signal?: AbortSignal | undefined;
  /** `details.phase` of the `cancelled` error (default `"sealing"`). */
  phase?: string | undefined;
}

/** The digest and the length of a value's canonical JSON, from {@link canonicalDigestAsync}. */
export interface CanonicalDigest {
  /** SHA-256 of the canonical JSON, lowercase hex. */
  sha256: string;
  /** Length of the canonical JSON in UTF-8 bytes. */
  byteLength: number;
}

/**
 * {@link canonicalSha256} without holding the event loop: objects are hashed a member at a time and
 * arrays (where the bulk of a large record lies: its tables) a batch of items at a time, with a turn of the
 * event loop whenever about ten milliseconds of work have run, and the signal checked at each turn.
 * The digest is the same as {@link canonicalSha256}'s; values JSON cannot carry are refused the same
 * way (`invalid_request`, `details.reason: "not-json"`, with the path from the root).
 */
export async function canonicalSha256Async(value: unknown, options: CanonicalAsyncOptions = {}): Promise<string> {
  return (await canonicalDigestAsync(value, options)).sha256;
}

/**
 * {@link canonicalSha256Async} that also counts the bytes of the canonical JSON it hashes, in the same
 * pass and with the same turns of the event loop and refusals.
 */
export async function canonicalDigestAsync(
  value: unknown,
  options: CanonicalAsyncOptions = {},
): Promise<CanonicalDigest> {
  const sha = createHash('sha256');
  let byteLength = 0;
  await writeCanonicalAsync(
    value,
    (chunk) => {
      sha.update(chunk);
      byteLength += typeof chunk === 'string' ? chunk.length : chunk.byteLength;
    },
    options,
  );
  return { sha256: sha.digest('hex'), byteLength };
}

/**
 * {@link canonicalJson} without holding the event loop: the same text, written a slice at a time with
 * the turns of the event loop, signal checks and refusals of {@link canonicalSha256Async}
 * (`details.phase` from `options.phase`, `"sealing"` by default). For a caller that must answer with a
 * large value's text while other work keeps being served.
 */
export async function canonicalJsonAsync(value: unknown, options: CanonicalAsyncOptions = {}): Promise<string> {
  // Byte chunks may end inside a character (a batch's closing bracket is held back): the decoder
  // carries the partial character to the next chunk. Strings written directly are ASCII punctuation,
  // written only between complete characters.
  const decoder = new StringDecoder('utf8');
  let text = '';
  await writeCanonicalAsync(
    value,
    (chunk) => {
      text += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    },
    options,
  );
  return text + decoder.end();
}

/** Receives the canonical JSON of a value in order: ASCII punctuation as strings, the rest as UTF-8 bytes. */
type ChunkSink = (chunk: string | Uint8Array) => void;

/** The walk shared by the digest and the text: canonical JSON to `update`, a slice at a time. */
async function writeCanonicalAsync(value: unknown, update: ChunkSink, options: CanonicalAsyncOptions): Promise<void> {
  const sink = (bytes: Uint8Array): void => {
    update(bytes);
  };
  // Items written as one array, less its brackets: one writer call per batch keeps the writer's
  // cache of object shapes warm, which writing item by item would not.
  const writeItems = (items: unknown[]): void => {
    let opening = true;
    let held = -1;
    writeCanonicalBytes(items, (bytes) => {
      const start = opening ? 1 : 0;
      opening = false;
      if (held >= 0) update(Uint8Array.of(held));
      held = -1;
      if (bytes.length - start <= 0) return;
      update(bytes.subarray(start, bytes.length - 1));
      held = bytes[bytes.length - 1]!;
    });
    // `held` is the closing bracket.
  };
  let sliceStart = monotonicMs();
  const pause = async (): Promise<void> => {
    if (monotonicMs() - sliceStart < SLICE_MS) return;
    await nextTurn();
    throwIfAborted(options.signal, options.phase ?? 'sealing');
    sliceStart = monotonicMs();
  };
  let batch = BATCH;
  const walk = async (node: unknown): Promise<void> => {
    if (Array.isArray(node)) {
      update('[');
      for (let i = 0; i < node.length;) {
        if (i > 0) update(',');
        const item: unknown = node[i];
        if (isLongArray(item)) {
          await walk(item);
          i += 1;
        } else {
          // A run of items up to the next long array, written whole; the batch shrinks when items
          // turn out to be large, so that one batch stays within a slice, and grows back when small.
          let stop = i + 1;
          while (stop < Math.min(i + batch, node.length) && !isLongArray(node[stop])) stop += 1;
          const started = monotonicMs();
          writeItems(node.slice(i, stop));
          const spent = monotonicMs() - started;
          // A batch slowed by a cold start or a busy machine shrinks it only for as long as it lasts:
          // a quick batch lets it grow back, or every later item would be written alone.
          if (spent > SLICE_MS && batch > 1) batch = Math.max(1, batch >> 2);
          else if (spent < SLICE_MS / 4 && batch < BATCH) batch = Math.min(BATCH, batch << 1);
          i = stop;
        }
        await pause();
      }
      update(']');
      return;
    }
    const record = node as Record<string, unknown>;
    update('{');
    let first = true;
    for (const key of Object.keys(record).sort()) {
      if (!first) update(',');
      first = false;
      writeCanonicalBytes(key, sink);
      update(':');
      // `undefined` members are refused by the writer, as in the synchronous form.
      const item = record[key];
      if (isContainer(item)) await walk(item);
      else writeCanonicalBytes(item, sink);
      await pause();
    }
    update('}');
  };
  throwIfAborted(options.signal, options.phase ?? 'sealing');
  try {
    if (isContainer(value)) await walk(value);
    else writeCanonicalBytes(value, sink);
  } catch (error) {
    // A refusal deep inside names its path from where the writer started: report it from the root.
    if (isReaError(error) && error.code === 'invalid_request') canonicalSha256(value);
    throw error;
  }
}

function isLongArray(node: unknown): boolean {
  return Array.isArray(node) && node.length > BATCH;
}

function isContainer(node: unknown): boolean {
  if (node === null || typeof node !== 'object') return false;
  if (Array.isArray(node)) return true;
  const proto: unknown = Object.getPrototypeOf(node);
  return proto === Object.prototype || proto === null;
}
