import { malformed } from './reader.js';
import type { BinaryLayout } from './types.js';
export function parsePe(_bytes: Uint8Array, _signal: AbortSignal | undefined): BinaryLayout {
  throw malformed('pe', 'unknown-format', 'not yet');
}
