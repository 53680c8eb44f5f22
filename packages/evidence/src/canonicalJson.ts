import { createHash } from 'node:crypto';
import { ReaError } from './reaError.js';
import type { JsonValue } from './json.js';

/** Receives canonical JSON text in order, in chunks of bounded size (about 8 K UTF-16 code units). */
export type CanonicalSink = (chunk: string) => void;

// Small chunks keep the concatenated text shallow, so flattening it (for hashing or encoding) stays
// in cache; measured faster than 64 K chunks by a factor of two on 50 MB records.
const FLUSH_AT = 1 << 13;

// Strings without quotes, backslashes, control characters or surrogates serialize as themselves
// between quotes, and are well-formed: one scan decides the common case.
// eslint-disable-next-line no-control-regex -- control characters are exactly what JSON must escape.
const NEEDS_CARE = /["\\\u0000-\u001f\ud800-\udfff]/;

// Below this nesting depth no cycle check is needed: a cycle nests without end, so it is caught as
// soon as the walk passes this depth, at a fraction of the cost of checking every object.
const CYCLE_CHECK_DEPTH = 64;

function refuse(path: string, reason: string): never {
  throw new ReaError('invalid_request', `Value at ${path} cannot be represented in canonical JSON: ${reason}.`, {
    details: { reason: 'not-json', path, problem: reason },
  });
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function sortedKeys(node: object): string[] {
  const keys = Object.keys(node);
  // Objects built by code often already hold their keys in order; checking is cheaper than sorting.
  for (let i = 1; i < keys.length; i += 1) {
    if (keys[i - 1]! > keys[i]!) {
      // Default sort compares UTF-16 code units, which is exactly the JCS property order.
      return keys.sort();
    }
  }
  return keys;
}

/** The members of one object shape: keys in canonical order, and the text that opens each member. */
interface Members {
  keys: string[];
  /** `"key":` for the first member, `,"key":` for the others. */
  heads: string[];
}

interface Shape extends Members {
  /** The keys in the object's own enumeration order. */
  order: string[];
}

const NO_MEMBERS: Members = { keys: [], heads: [] };
const MAX_SHAPES_PER_KEY = 8;

/**
 * Canonical members per object shape. Large values repeat a few shapes (rows of a table), so the key
 * order of an object is compared with the shapes seen that begin with the same key — `for…in` walks
 * that allocate nothing — and only a new shape pays for `Object.keys`, sorting and quoting.
 * `quote` returns the JSON string of a key, refusing keys that are not well-formed.
 */
function createMemberCache(quote: (key: string) => string): (node: object) => Members {
  const membersOf = (keys: string[]): Members => ({
    keys,
    heads: keys.map((key, i) => `${i === 0 ? '' : ','}${quote(key)}:`),
  });
  // `for…in` also walks inherited enumerable keys; if anything made Object.prototype enumerable, the
  // cache is bypassed and every object gets its own keys.
  for (const _ in Object.prototype) return (node) => membersOf(sortedKeys(node));
  // Per first key, the shapes seen, most recently used first.
  const shapes = new Map<string, Shape[]>();
  const sameOrder = (a: string[], b: string[]): boolean => a.length === b.length && a.every((key, i) => key === b[i]);
  const lookUp = (node: object): Members => {
    const order = Object.keys(node);
    if (order.length === 0) return NO_MEMBERS;
    let candidates = shapes.get(order[0]!);
    if (candidates === undefined) shapes.set(order[0]!, (candidates = []));
    let index = candidates.findIndex((shape) => sameOrder(shape.order, order));
    if (index === -1) {
      // A few shapes per first key cover tables whose rows differ in optional members.
      if (candidates.length >= MAX_SHAPES_PER_KEY) candidates.pop();
      candidates.push({ order, ...membersOf(sortedKeys(node)) });
      index = candidates.length - 1;
    }
    const shape = candidates[index]!;
    candidates.splice(index, 1);
    candidates.unshift(shape);
    return shape;
  };
  return (node) => {
    let shape: Shape | undefined;
    let count = 0;
    for (const key in node) {
      if (count === 0) {
        shape = shapes.get(key)?.[0];
        if (shape === undefined) break;
      }
      if (shape!.order[count] !== key) {
        shape = undefined;
        break;
      }
      count += 1;
    }
    if (shape !== undefined && count === shape.order.length) return shape;
    return lookUp(node);
  };
}

/**
 * Writes the RFC 8785 (JCS) canonical form of `value` to `sink`, in chunks of bounded size, so that a
 * caller can hash or write a large value without holding its whole text.
 *
 * Refuses, with `invalid_request` (`details.reason: "not-json"`, `details.path`), anything JSON cannot
 * carry: NaN and infinities, `undefined`, functions, symbols, BigInt, lone surrogates in strings or
 * keys, cycles, nesting deeper than the call stack allows, and objects that are not plain objects or
 * arrays. Text already passed to `sink` before a refusal is incomplete; callers discard it.
 */
export function writeCanonicalJson(value: unknown, sink: CanonicalSink): void {
  let buffer = '';
  const ancestors: object[] = [];
  // The path of the current node, built only when a value is refused.
  const trail: Array<string | number> = [];
  const here = (): string =>
    trail.reduce<string>((path, step) => (typeof step === 'number' ? `${path}[${step}]` : `${path}.${step}`), '$');
  const membersOf = createMemberCache((key) => {
    if (!key.isWellFormed()) refuse(here(), 'a key contains a lone surrogate');
    return JSON.stringify(key);
  });
  const write = (node: unknown): void => {
    switch (typeof node) {
      case 'string':
        if (!NEEDS_CARE.test(node)) buffer += `"${node}"`;
        else if (node.isWellFormed()) buffer += JSON.stringify(node);
        else refuse(here(), 'string contains a lone surrogate');
        break;
      case 'number':
        if (!Number.isFinite(node)) refuse(here(), `${String(node)} is not a JSON number`);
        // ECMAScript Number-to-String is the JCS number form; -0 serializes as 0.
        buffer += node === 0 ? '0' : String(node);
        break;
      case 'boolean':
        buffer += node ? 'true' : 'false';
        break;
      case 'object': {
        if (node === null) {
          buffer += 'null';
          break;
        }
        if (ancestors.length >= CYCLE_CHECK_DEPTH && ancestors.includes(node)) refuse(here(), 'cycle');
        ancestors.push(node);
        if (Array.isArray(node)) {
          buffer += '[';
          for (let i = 0; i < node.length; i += 1) {
            if (i > 0) buffer += ',';
            const item: unknown = node[i];
            trail.push(i);
            if (item === undefined) refuse(here(), 'undefined');
            write(item);
            trail.pop();
          }
          buffer += ']';
        } else {
          if (!isPlainObject(node)) refuse(here(), `${node.constructor?.name ?? 'object'} is not a plain object`);
          const { keys, heads } = membersOf(node);
          buffer += '{';
          for (let i = 0; i < keys.length; i += 1) {
            const key = keys[i]!;
            const item = (node as Record<string, unknown>)[key];
            buffer += heads[i]!;
            trail.push(key);
            if (item === undefined) refuse(here(), 'undefined');
            write(item);
            trail.pop();
          }
          buffer += '}';
        }
        ancestors.pop();
        break;
      }
      case 'bigint':
        refuse(here(), 'BigInt');
      // falls through (refuse never returns)
      default:
        refuse(here(), typeof node);
    }
    if (buffer.length >= FLUSH_AT) {
      sink(buffer);
      buffer = '';
    }
  };
  try {
    write(value);
  } catch (error) {
    // Nesting deeper than the call stack is refused like any other value JSON tools cannot carry.
    if (error instanceof RangeError && /call stack/i.test(error.message)) refuse('$', 'nesting too deep');
    throw error;
  }
  if (buffer.length > 0) sink(buffer);
}

/** The RFC 8785 canonical JSON text of `value`. Refuses non-JSON values like {@link writeCanonicalJson}. */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  writeCanonicalJson(value, (chunk) => parts.push(chunk));
  return parts.join('');
}

/** Lowercase hex SHA-256 of the canonical JSON (UTF-8) of `value`, hashed as it is produced. */
export function canonicalSha256(value: unknown): string {
  const hash = createHash('sha256');
  writeCanonicalJson(value, (chunk) => hash.update(chunk, 'utf8'));
  return hash.digest('hex');
}

/** Size in bytes of the canonical JSON (UTF-8) of `value`. Refuses non-JSON values like {@link writeCanonicalJson}. */
export function canonicalByteLength(value: unknown): number {
  let bytes = 0;
  writeCanonicalJson(value, (chunk) => {
    bytes += Buffer.byteLength(chunk, 'utf8');
  });
  return bytes;
}

/** Parses JSON text and returns it as a {@link JsonValue}; malformed text is `invalid_request`. */
export function parseJson(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new ReaError('invalid_request', `Malformed JSON: ${(error as Error).message}`, {
      details: { reason: 'malformed-json' },
    });
  }
}
