import { createHash } from 'node:crypto';
import { ReaError } from './reaError.js';
import type { JsonValue } from './json.js';

/** Receives canonical JSON text in order, in chunks of bounded size. */
export type CanonicalSink = (chunk: string) => void;

const FLUSH_AT = 1 << 16;

function refuse(path: string, reason: string): never {
  throw new ReaError('invalid_request', `Value at ${path} cannot be represented in canonical JSON: ${reason}.`, {
    details: { reason: 'not-json', path, problem: reason },
  });
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Writes the RFC 8785 (JCS) canonical form of `value` to `sink`, in chunks of about 64 KiB.
 *
 * Refuses, with `invalid_request` (`details.reason: "not-json"`, `details.path`), anything JSON cannot
 * carry: NaN and infinities, `undefined`, functions, symbols, BigInt, lone surrogates in strings or
 * keys, cycles, and objects that are not plain objects or arrays.
 */
export function writeCanonicalJson(value: unknown, sink: CanonicalSink): void {
  let buffer = '';
  const ancestors = new Set<object>();
  const emit = (text: string): void => {
    buffer += text;
    if (buffer.length >= FLUSH_AT) {
      sink(buffer);
      buffer = '';
    }
  };
  const write = (node: unknown, path: string): void => {
    switch (typeof node) {
      case 'string':
        if (!node.isWellFormed()) refuse(path, 'string contains a lone surrogate');
        emit(JSON.stringify(node));
        return;
      case 'number':
        if (!Number.isFinite(node)) refuse(path, `${String(node)} is not a JSON number`);
        // ECMAScript Number-to-String is the JCS number form; -0 serializes as 0.
        emit(node === 0 ? '0' : String(node));
        return;
      case 'boolean':
        emit(node ? 'true' : 'false');
        return;
      case 'object': {
        if (node === null) {
          emit('null');
          return;
        }
        if (ancestors.has(node)) refuse(path, 'cycle');
        ancestors.add(node);
        if (Array.isArray(node)) {
          emit('[');
          for (let i = 0; i < node.length; i += 1) {
            if (i > 0) emit(',');
            const item: unknown = node[i];
            if (item === undefined) refuse(`${path}[${i}]`, 'undefined');
            write(item, `${path}[${i}]`);
          }
          emit(']');
        } else {
          if (!isPlainObject(node)) refuse(path, `${node.constructor?.name ?? 'object'} is not a plain object`);
          // Default sort compares UTF-16 code units, which is exactly the JCS property order.
          const keys = Object.keys(node).sort();
          emit('{');
          let first = true;
          for (const key of keys) {
            const item = (node as Record<string, unknown>)[key];
            if (item === undefined) refuse(`${path}.${key}`, 'undefined');
            if (!key.isWellFormed()) refuse(path, 'a key contains a lone surrogate');
            if (!first) emit(',');
            first = false;
            emit(JSON.stringify(key));
            emit(':');
            write(item, `${path}.${key}`);
          }
          emit('}');
        }
        ancestors.delete(node);
        return;
      }
      case 'bigint':
        refuse(path, 'BigInt');
      // falls through (refuse never returns)
      default:
        refuse(path, typeof node);
    }
  };
  write(value, '$');
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
