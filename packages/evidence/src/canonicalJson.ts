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

/**
 * Writes the RFC 8785 (JCS) canonical form of `value` to `sink`, in chunks of bounded size, so that a
 * caller can hash or write a large value without holding its whole text.
 *
 * Refuses, with `invalid_request` (`details.reason: "not-json"`, `details.path`), anything JSON cannot
 * carry: NaN and infinities, `undefined`, functions, symbols, BigInt, lone surrogates in strings or
 * keys, cycles, nesting deeper than the call stack allows, and objects that are not plain objects or
 * arrays. Text already passed to `sink`
 * before a refusal is incomplete; callers discard it.
 */
export function writeCanonicalJson(value: unknown, sink: CanonicalSink): void {
  let buffer = '';
  const ancestors: object[] = [];
  const quotedKeys = new Map<string, string>();
  // The path of the current node, built only when a value is refused.
  const trail: Array<string | number> = [];
  const here = (): string =>
    trail.reduce<string>((path, step) => (typeof step === 'number' ? `${path}[${step}]` : `${path}.${step}`), '$');
  const quoteKey = (key: string): string => {
    let quoted = quotedKeys.get(key);
    if (quoted === undefined) {
      if (!key.isWellFormed()) refuse(here(), 'a key contains a lone surrogate');
      quoted = `${JSON.stringify(key)}:`;
      quotedKeys.set(key, quoted);
    }
    return quoted;
  };
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
          const keys = sortedKeys(node);
          buffer += '{';
          for (let i = 0; i < keys.length; i += 1) {
            const key = keys[i]!;
            const item = (node as Record<string, unknown>)[key];
            if (i > 0) buffer += ',';
            buffer += quoteKey(key);
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
