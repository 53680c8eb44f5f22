// Canonical members per object shape, for the canonical writer. Large values repeat a few shapes (the
// rows of a table), and small values repeat the shapes of earlier ones (diagnostics, summaries), so an
// object's keys are compared, in a `for…in` walk that allocates nothing, with the shape last seen that
// began with the same key; only a new shape pays for `Object.keys`, sorting and encoding its member
// heads. Shapes are kept from one serialization to the next, within bounds.
import { Refusal } from './canonicalEncode.js';

/** The members of one object shape, in canonical order. */
export interface Shape {
  /** The keys in the object's own enumeration order. */
  readonly order: readonly string[];
  /** The keys sorted by UTF-16 code units, the RFC 8785 member order. */
  readonly keys: readonly string[];
  /**
   * UTF-8 of `"key":` for the first member and `,"key":` for the others, in canonical order, as
   * little-endian 32-bit words, the last one padded with zeros.
   */
  readonly headWords: readonly Uint32Array[];
  /** The length in bytes of each head. */
  readonly headLengths: readonly number[];
}

const EMPTY: Shape = { order: [], keys: [], headWords: [], headLengths: [] };

function wordsOf(bytes: Buffer): Uint32Array {
  const words = new Uint32Array(Math.ceil(bytes.length / 4));
  const view = new DataView(words.buffer);
  for (let i = 0; i < bytes.length; i += 1) view.setUint8(i, bytes[i]!);
  // Uint32Array uses the platform's byte order; read the words back as little-endian numbers.
  for (let i = 0; i < words.length; i += 1) words[i] = view.getUint32(i * 4, true);
  return words;
}
/** Shapes remembered per first key: a few cover tables whose rows differ in optional members. */
const SHAPES_PER_KEY = 8;
/** Distinct first keys remembered; past this the cache starts over, so its memory stays bounded. */
const FIRST_KEYS = 4096;
/** Bytes of member heads remembered; past this the cache starts over (a few very long keys). */
const HEAD_BYTES = 1 << 20;

function sameOrder(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

function shapeOf(order: string[]): Shape {
  let keys = order;
  // Objects built by code often hold their keys in order already; checking is cheaper than sorting.
  for (let i = 1; i < order.length; i += 1) {
    if (order[i - 1]! > order[i]!) {
      // The default sort compares UTF-16 code units, which is exactly the RFC 8785 member order.
      keys = [...order].sort();
      break;
    }
  }
  const heads = keys.map((key, i) => {
    if (!key.isWellFormed()) throw new Refusal('a key contains a lone surrogate');
    return Buffer.from(`${i === 0 ? '' : ','}${JSON.stringify(key)}:`, 'utf8');
  });
  return { order, keys, headWords: heads.map(wordsOf), headLengths: heads.map((head) => head.length) };
}

/** Finds the canonical members of plain objects; one per serialization, since it holds on to keys. */
export class ShapeCache {
  // Per first key, the shapes seen, most recently used first.
  private readonly shapes = new Map<string, Shape[]>();
  // `for…in` also walks inherited enumerable keys; if anything made Object.prototype enumerable, the
  // cache is bypassed and every object gets its own keys.
  private bypass = false;
  private headBytes = 0;

  /** The canonical members of `node`, a plain object. Refuses a key holding a lone surrogate. */
  membersOf(node: object): Shape {
    if (this.bypass) return shapeOf(Object.keys(node));
    let shape: Shape | undefined;
    let count = 0;
    for (const key in node) {
      if (count === 0) {
        shape = this.shapes.get(key)?.[0];
        if (shape === undefined) break;
      }
      if (count >= shape!.order.length || shape!.order[count] !== key) {
        shape = undefined;
        break;
      }
      count += 1;
    }
    if (shape !== undefined && count === shape.order.length) return shape;
    return this.lookUp(node);
  }

  private lookUp(node: object): Shape {
    const order = Object.keys(node);
    if (order.length === 0) return EMPTY;
    let candidates = this.shapes.get(order[0]!);
    if (candidates === undefined) {
      if (this.shapes.size >= FIRST_KEYS) this.forget();
      this.shapes.set(order[0]!, (candidates = []));
    }
    let index = candidates.findIndex((shape) => sameOrder(shape.order, order));
    if (index === -1) {
      const fresh = shapeOf(order);
      for (const length of fresh.headLengths) this.headBytes += length;
      if (this.headBytes > HEAD_BYTES) {
        this.forget();
        this.shapes.set(order[0]!, (candidates = []));
      }
      if (candidates.length >= SHAPES_PER_KEY) candidates.pop();
      candidates.push(fresh);
      index = candidates.length - 1;
    }
    const shape = candidates[index]!;
    if (index > 0) {
      candidates.splice(index, 1);
      candidates.unshift(shape);
    }
    return shape;
  }

  /** Prepares a serialization: the cache is bypassed while Object.prototype has enumerable keys. */
  begin(): void {
    let inherited = false;
    for (const _ in Object.prototype) inherited = true;
    this.bypass = inherited;
  }

  /** Forgets every shape. */
  forget(): void {
    this.shapes.clear();
    this.headBytes = 0;
  }
}
