import { setImmediate as nextTurn } from 'node:timers/promises';
import { monotonicMs, throwIfAborted, writeCanonicalJson } from '@rea/evidence';

class BudgetExceeded extends Error {
  constructor() {
    super('budget exceeded');
  }
}

/** What a response costs on the wire. */
export interface ResponseCost {
  /** UTF-8 bytes of the canonical JSON of the value (the structured content). */
  structured: number;
  /** UTF-8 bytes of the same JSON embedded as a JSON string (the text content). */
  text: number;
  /** What counts against the budget: text, plus structured unless only text is sent. */
  total: number;
  /** True when the value fits the budget. */
  fits: boolean;
}

/** The running count of one measurement (see {@link measureResponse}). */
interface Meter {
  /** Counts a value; throws BudgetExceeded once the running total passes the budget. */
  walk(node: unknown): void;
  /** Counts a member name. */
  string(text: string): void;
  /** Counts bytes of punctuation (brackets, braces, colons, commas). */
  punctuation(bytes: number): void;
  /** Throws BudgetExceeded once the running total passes the budget. */
  check(): void;
  /** The cost so far, as {@link measureResponse} reports it. */
  cost(exceeded: boolean): ResponseCost;
}

function meterFor(root: unknown, budget: number, withStructured: boolean): Meter {
  let structured = 0;
  let extra = 2; // the text is itself a JSON string: its quotes
  const check = (): void => {
    if ((withStructured ? structured : 0) + structured + extra > budget) throw new BudgetExceeded();
  };
  const string = (text: string): void => {
    structured += 2;
    extra += 2;
    for (let i = 0; i < text.length; i += 1) {
      const c = text.charCodeAt(i);
      if (c === 0x22 || c === 0x5c) {
        structured += 2; // \" or \\ ...
        extra += 2; // ... each character escaped again in the text
      } else if (c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d) {
        structured += 2;
        extra += 1;
      } else if (c < 0x20) {
        structured += 6;
        extra += 1;
      } else if (c < 0x80) structured += 1;
      else if (c < 0x800) structured += 2;
      else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
        const next = text.charCodeAt(i + 1);
        if (next >= 0xdc00 && next <= 0xdfff) {
          structured += 4;
          i += 1;
        } else structured += 3;
      } else structured += 3;
    }
    check();
  };
  const ancestors = new Set<object>();
  const walk = (node: unknown): void => {
    switch (typeof node) {
      case 'string':
        string(node);
        return;
      case 'number':
        if (!Number.isFinite(node)) break;
        structured += node === 0 ? 1 : String(node).length;
        return;
      case 'boolean':
        structured += node ? 4 : 5;
        return;
      case 'object': {
        if (node === null) {
          structured += 4;
          return;
        }
        if (ancestors.has(node)) break;
        if (Array.isArray(node)) {
          ancestors.add(node);
          structured += node.length > 0 ? node.length + 1 : 2; // brackets and commas
          for (const item of node) walk(item);
          ancestors.delete(node);
          return;
        }
        if (!isPlainObject(node)) break;
        ancestors.add(node);
        const keys = Object.keys(node);
        structured += keys.length > 0 ? keys.length * 2 + 1 : 2; // braces, colons and commas
        for (const key of keys) {
          string(key);
          walk((node as Record<string, unknown>)[key]);
        }
        ancestors.delete(node);
        check();
        return;
      }
      default:
        break;
    }
    // Not JSON: let the canonical writer raise its typed refusal.
    writeCanonicalJson(root, () => undefined);
  };
  return {
    walk,
    string,
    punctuation: (bytes) => {
      structured += bytes;
    },
    check,
    cost: (exceeded) => {
      const text = structured + extra;
      const total = (withStructured ? structured : 0) + text;
      return exceeded
        ? { structured, text, total: Math.max(budget + 1, total), fits: false }
        : { structured, text, total, fits: total <= budget };
    },
  };
}

function isPlainObject(node: object): boolean {
  const proto = Object.getPrototypeOf(node) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Measures what sending `value` as structured content and as JSON text would cost, without building
 * any serialized form: one walk over the value counts the UTF-8 bytes of its canonical JSON and the
 * extra bytes that escaping that JSON into a string adds, and stops as soon as the running total passes
 * `budget`. `withStructured: false` counts the text only (tool errors carry no structured content).
 * A value JSON cannot carry is refused like `writeCanonicalJson` refuses it.
 */
export function measureResponse(value: unknown, budget: number, withStructured = true): ResponseCost {
  const meter = meterFor(value, budget, withStructured);
  try {
    meter.walk(value);
  } catch (error) {
    if (!(error instanceof BudgetExceeded)) throw error;
    return meter.cost(true);
  }
  return meter.cost(false);
}

/** Arrays longer than this, inside an array, are walked an item at a time too. */
const BATCH = 256;
/** Longest stretch of counting between two turns of the event loop (ms). */
const SLICE_MS = 10;

/**
 * {@link measureResponse} without holding the event loop for a large value: objects are counted a
 * member at a time and arrays an item at a time, with a turn of the event loop whenever
 * about ten milliseconds of counting have run, and `signal` checked at each turn (`cancelled`,
 * `details.phase: "publication"`). Same cost and refusals.
 */
export async function measureResponseAsync(
  value: unknown,
  budget: number,
  withStructured: boolean,
  signal: AbortSignal | undefined,
): Promise<ResponseCost> {
  const meter = meterFor(value, budget, withStructured);
  let sliceStart = monotonicMs();
  const turn = async (): Promise<void> => {
    await nextTurn();
    throwIfAborted(signal, 'publication');
    sliceStart = monotonicMs();
  };
  const due = (): boolean => monotonicMs() - sliceStart >= SLICE_MS;
  const ancestors = new Set<object>();
  // Objects are walked a member at a time and arrays an item at a time; an item is counted whole
  // unless it is itself a long array (where the bulk of a large record lies: its tables).
  const walk = async (node: unknown): Promise<void> => {
    if (node === null || typeof node !== 'object' || ancestors.has(node)) return meter.walk(node);
    if (Array.isArray(node)) {
      ancestors.add(node);
      meter.punctuation(node.length > 0 ? node.length + 1 : 2);
      for (const item of node) {
        if (Array.isArray(item) && item.length > BATCH) await walk(item);
        else meter.walk(item);
        if (due()) await turn();
      }
      ancestors.delete(node);
      meter.check();
      return;
    }
    if (!isPlainObject(node)) return meter.walk(node);
    ancestors.add(node);
    const keys = Object.keys(node);
    meter.punctuation(keys.length > 0 ? keys.length * 2 + 1 : 2);
    for (const key of keys) {
      meter.string(key);
      const member = (node as Record<string, unknown>)[key];
      if (member !== null && typeof member === 'object') await walk(member);
      else meter.walk(member);
      if (due()) await turn();
    }
    ancestors.delete(node);
    meter.check();
  };
  throwIfAborted(signal, 'publication');
  try {
    await walk(value);
  } catch (error) {
    if (!(error instanceof BudgetExceeded)) throw error;
    return meter.cost(true);
  }
  return meter.cost(false);
}

/** Characters of a text counted between two looks at the clock (see {@link costOfCanonicalTextAsync}). */
const COUNT_STRIDE = 1 << 20;

/**
 * What a response carrying `text`, the canonical JSON of a value whose UTF-8 size `byteSize` is already
 * known (a record sealed in this process), costs: exactly what {@link measureResponse} gives for that
 * value, from one pass over the text's characters instead of a walk of the value. Embedded as the text
 * content, the JSON costs its own bytes, two quotes, and one byte more for each `"` and `\` it holds
 * (each is escaped once more); canonical JSON holds no raw control character and no lone surrogate.
 * Gives the event loop a turn while counting a long text (`cancelled`, `details.phase: "publication"`,
 * when `signal` is aborted meanwhile).
 */
export async function costOfCanonicalTextAsync(
  text: string,
  byteSize: number,
  budget: number,
  withStructured: boolean,
  signal: AbortSignal | undefined,
): Promise<ResponseCost> {
  let escaped = 0;
  let sliceStart = monotonicMs();
  for (let from = 0; from < text.length; from += COUNT_STRIDE) {
    escaped += escapesIn(text, from, Math.min(text.length, from + COUNT_STRIDE));
    if (monotonicMs() - sliceStart >= SLICE_MS) {
      await nextTurn();
      throwIfAborted(signal, 'publication');
      sliceStart = monotonicMs();
    }
  }
  const textBytes = byteSize + 2 + escaped;
  const total = (withStructured ? byteSize : 0) + textBytes;
  return { structured: byteSize, text: textBytes, total, fits: total <= budget };
}

/** The `"` and `\` characters of `text` in [from, to). */
function escapesIn(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = from; i < to; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x22 || c === 0x5c) count += 1;
  }
  return count;
}

/** The byte budget for text + structured content: the configured maximum less the envelope reserve. */
export function contentBudget(maxResponseBytes: number, reserve: number): number {
  return maxResponseBytes - reserve;
}
