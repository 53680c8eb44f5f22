import { createHash } from 'node:crypto';
import { writeCanonicalBytes } from './canonicalBytes.js';
import { ReaError } from './reaError.js';
import { MALFORMED_JSON_REMEDIATION } from './jsonLargeValue.js';
import type { JsonValue } from './json.js';

/**
 * Receives canonical JSON text in order, in chunks of bounded size (at most about 90 KiB of UTF-8)
 * that never split a character.
 */
export type CanonicalSink = (chunk: string) => void;

/**
 * Writes the RFC 8785 (JCS) canonical form of `value` to `sink` as text, in chunks of bounded size, so
 * that a caller can hash or write a large value without holding its whole text. Callers that want
 * bytes (to hash or write them) should use {@link writeCanonicalBytes}, which skips the decoding.
 *
 * Refuses, with `invalid_request` (`details.reason: "not-json"`, `details.path`), anything JSON cannot
 * carry: NaN and infinities, `undefined`, functions, symbols, BigInt, lone surrogates in strings or
 * keys, cycles, nesting deeper than the call stack allows, and objects that are not plain objects or
 * arrays. Text already passed to `sink` before a refusal is incomplete; callers discard it.
 */
export function writeCanonicalJson(value: unknown, sink: CanonicalSink): void {
  writeCanonicalBytes(value, (bytes) => sink(utf8(bytes)));
}

function utf8(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/** The RFC 8785 canonical JSON text of `value`. Refuses non-JSON values like {@link writeCanonicalBytes}. */
export function canonicalJson(value: unknown): string {
  let text = '';
  writeCanonicalBytes(value, (bytes) => {
    text += utf8(bytes);
  });
  return text;
}

/** Lowercase hex SHA-256 of the canonical JSON (UTF-8) of `value`, hashed as it is produced. */
export function canonicalSha256(value: unknown): string {
  const hash = createHash('sha256');
  writeCanonicalBytes(value, (bytes) => hash.update(bytes));
  return hash.digest('hex');
}

/** Size in bytes of the canonical JSON (UTF-8) of `value`. Refuses non-JSON values like {@link writeCanonicalBytes}. */
export function canonicalByteLength(value: unknown): number {
  let size = 0;
  writeCanonicalBytes(value, (bytes) => {
    size += bytes.byteLength;
  });
  return size;
}

/** Parses JSON text and returns it as a {@link JsonValue}; malformed text is `invalid_request`. */
export function parseJson(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new ReaError('invalid_request', `Malformed JSON: ${(error as Error).message}`, {
      details: { reason: 'malformed-json' },
      remediation: MALFORMED_JSON_REMEDIATION,
    });
  }
}
