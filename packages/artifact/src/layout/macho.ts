import { malformed } from './reader.js';
import type { BinaryLayout } from './types.js';
export function parseMachO(_bytes: Uint8Array, _signal: AbortSignal | undefined): BinaryLayout {
  throw malformed('macho', 'unknown-format', 'not yet');
}
export function parseFatMachO(_bytes: Uint8Array, _signal: AbortSignal | undefined): BinaryLayout {
  throw malformed('macho-fat', 'unknown-format', 'not yet');
}
