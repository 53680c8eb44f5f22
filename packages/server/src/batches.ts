// JSON-RPC batches (one frame holding an array of messages) by MCP protocol version. Protocol 2025-03-26
// has them; 2025-06-18 removed them, and from then on a Streamable HTTP POST body is one message. The
// versions before 2025-03-26 speak plain JSON-RPC 2.0, whose batches REA's HTTP transport has always
// answered, and still does.
import { INVALID_REQUEST, frameError } from './frames.js';
import type { FrameErrorResponse } from './frames.js';

/** The first protocol version without JSON-RPC batches. */
const FIRST_WITHOUT_BATCHES = '2025-06-18';

/** True when `version`, one of `supported`, has JSON-RPC batches; false for any other value. */
export function hasBatches(version: string | undefined, supported: readonly string[]): boolean {
  // Versions are dates (YYYY-MM-DD), so their order is that of their text.
  return version !== undefined && supported.includes(version) && version < FIRST_WITHOUT_BATCHES;
}

/**
 * The protocol version an initialize request carried in a batch asks for (what the server answers when
 * it supports it; any other value gets a version without batches), or undefined when the batch holds
 * no initialize request.
 */
export function requestedVersion(batch: readonly unknown[]): string | undefined {
  for (const message of batch) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, params } = message as { method?: unknown; params?: { protocolVersion?: unknown } };
    if (method === 'initialize' && typeof params?.protocolVersion === 'string') return params.protocolVersion;
  }
  return undefined;
}

/**
 * The answer to a batch sent for a protocol `version` that has none: -32600 with `id: null` (the batch
 * as a whole is refused; none of its messages is handled).
 */
export function batchRefusal(version: string | undefined): FrameErrorResponse {
  const named = version === undefined ? 'this session' : `protocol version ${version}`;
  return frameError(
    null,
    INVALID_REQUEST,
    `Invalid Request: ${named} has no JSON-RPC batches (removed in ${FIRST_WITHOUT_BATCHES}); send one message per request.`,
  );
}
