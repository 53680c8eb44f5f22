// The JSON-RPC frame check of REA's transport boundary. The SDK's transports drop a line that is not
// JSON (stdio) or answer a shapeless frame without its id (HTTP); a client then waits for an answer
// that never comes. Every frame that is not a valid JSON-RPC message is answered here instead: -32700
// when it is not JSON, -32600 when it is JSON of the wrong shape, each with the request's id whenever
// the id can be read.

/** A JSON-RPC id as the SDK accepts it: a string or an integer. */
export type FrameId = string | number;

/** A JSON-RPC error response made at the transport boundary. */
export interface FrameErrorResponse {
  jsonrpc: '2.0';
  id: FrameId | null;
  error: { code: number; message: string };
}

/** The SDK's message validator (`parseJSONRPCMessage`): returns the message or throws. */
export type MessageParser = (value: unknown) => unknown;

/** The outcome of checking one frame: forward it, answer it, or drop it (a malformed response). */
export type FrameCheck = { ok: true } | { ok: false; response: FrameErrorResponse | null; reason: string };

/** JSON-RPC 2.0: the text is not JSON. */
export const PARSE_ERROR = -32700;
/** JSON-RPC 2.0: the JSON is not a valid request object. */
export const INVALID_REQUEST = -32600;
/** JSON-RPC 2.0: the method exists but its parameters are invalid. */
export const INVALID_PARAMS = -32602;

/** A JSON-RPC error response for `id`. */
export function frameError(id: FrameId | null, code: number, message: string): FrameErrorResponse {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/** A JSON object (not an array, not null). */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The id of `value` when it is usable (a string or an integer), else null. */
export function usableId(value: unknown): FrameId | null {
  if (!isObject(value)) return null;
  const id = value['id'];
  if (typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id))) return id;
  return null;
}

/** How much of the start of a frame too long to read is searched for its id. */
const ID_SEARCH_BYTES = 64 * 1024;

/**
 * The id of a JSON-RPC frame from its first bytes alone, when the frame is too long to be read whole:
 * the value of the top-level member `id` (a string or an integer) when it comes within the first
 * {@link ID_SEARCH_BYTES} (clients write it before `params`), else null. Members nested in other values
 * are passed over; nothing after the id is looked at.
 */
export function leadingId(head: Uint8Array): FrameId | null {
  const text = Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, ID_SEARCH_BYTES)).toString('utf8');
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if (char === '"') {
      // A string: a member name when a key is expected at the top level, else a value passed over.
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (end >= text.length) return null;
      const atKey = depth === 1 && expectKey;
      const key = atKey ? text.slice(i, end + 1) : null;
      i = end;
      if (key === '"id"') {
        const value = /^\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)(?=\s*[,}])/.exec(text.slice(i + 1, i + 1 + 1024));
        if (value === null) return null;
        try {
          return usableId({ id: JSON.parse(value[1]!) as unknown });
        } catch {
          return null;
        }
      }
      if (atKey) expectKey = false;
    } else if (char === '{' || char === '[') {
      depth += 1;
      expectKey = char === '{' && depth === 1;
    } else if (char === '}' || char === ']') {
      depth -= 1;
    } else if (char === ',' && depth === 1) {
      expectKey = true;
    }
  }
  return null;
}

/**
 * `text` with the slips of hand-written JSON undone: a byte order mark before it, and commas before a
 * closing bracket (outside strings). Used only to read the id of a frame that is answered with -32700.
 */
function relaxed(text: string): string {
  const source = text.replace(/^[\uFEFF\s]+/, '');
  let out = '';
  let inString = false;
  for (let i = 0; i < source.length; i += 1) {
    const char = source[i]!;
    if (inString) {
      out += char;
      if (char === '\\') out += source[++i] ?? '';
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    if (char === ',') {
      let next = i + 1;
      while (next < source.length && /\s/.test(source[next]!)) next += 1;
      if (source[next] === '}' || source[next] === ']') continue;
    }
    out += char;
  }
  return out;
}

function shapeProblem(value: unknown): string {
  if (Array.isArray(value)) {
    return value.length === 0
      ? 'an empty batch holds no message'
      : 'a batch (JSON array) is not accepted; send one message per frame';
  }
  if (!isObject(value)) return 'a JSON-RPC message is a JSON object';
  if (value['jsonrpc'] !== '2.0') return '"jsonrpc" must be "2.0"';
  if ('method' in value && typeof value['method'] !== 'string') return '"method" must be a string';
  if ('params' in value && !isObject(value['params'])) return '"params" must be an object';
  if ('id' in value && usableId(value) === null) return '"id" must be a string or an integer';
  if (!('method' in value)) return 'a request needs a "method"';
  const meta = isObject(value['params']) ? value['params']['_meta'] : undefined;
  if (meta !== undefined && !isObject(meta)) return '"params._meta" must be an object';
  const token = isObject(meta) ? meta['progressToken'] : undefined;
  if (token !== undefined && typeof token !== 'string' && !(typeof token === 'number' && Number.isSafeInteger(token)))
    return '"params._meta.progressToken" must be a string or an integer';
  return 'the message has members a JSON-RPC request does not have';
}

/** What is wrong with the params of an initialize request, in a sentence; null when nothing is. */
function initializeProblem(value: Record<string, unknown>): string | null {
  const params = value['params'];
  const needs = 'initialize needs "params" with "protocolVersion", "capabilities" and "clientInfo"';
  if (!isObject(params)) return `Invalid params: ${needs}.`;
  if (typeof params['protocolVersion'] !== 'string')
    return 'Invalid params: "protocolVersion" of initialize must be the version the client speaks, a string.';
  if (!isObject(params['capabilities']))
    return 'Invalid params: "capabilities" of initialize must be an object (an empty one for none).';
  const info = params['clientInfo'];
  if (!isObject(info) || typeof info['name'] !== 'string' || typeof info['version'] !== 'string')
    return 'Invalid params: "clientInfo" of initialize must be an object with a "name" and a "version", strings.';
  return null;
}

/** The lists this server answers in one page: it never gives a cursor for them. */
const UNPAGED: ReadonlySet<string> = new Set(['tools/list', 'prompts/list', 'resources/templates/list']);

/** A cursor given to a list answered in one page: none was ever given out, so it is unknown. */
function cursorProblem(value: Record<string, unknown>): string | null {
  const params = value['params'];
  const cursor = isObject(params) ? params['cursor'] : undefined;
  if (cursor === undefined) return null;
  const shown = typeof cursor === 'string' ? JSON.stringify(cursor.slice(0, 64)) : typeof cursor;
  return `Invalid params: unknown cursor ${shown} for ${String(value['method'])}, which answers in one page and gives no cursor.`;
}

/** What is wrong with the params of a prompts/get request, in a sentence; null when nothing is. */
function promptProblem(value: Record<string, unknown>): string | null {
  const params = value['params'];
  if (isObject(params) && typeof params['name'] === 'string') return null;
  return 'Invalid params: prompts/get needs "params" with the prompt\'s "name" (prompts/list lists them).';
}

/**
 * What is wrong with the params of a request the SDK would otherwise refuse with an internal error (or
 * a misleading message), in a sentence; null when nothing is.
 */
function paramsProblem(value: unknown): string | null {
  if (!isObject(value) || !('id' in value)) return null;
  if (typeof value['method'] === 'string' && UNPAGED.has(value['method'])) return cursorProblem(value);
  if (value['method'] === 'initialize') return initializeProblem(value);
  if (value['method'] === 'prompts/get') return promptProblem(value);
  return toolCallProblem(value);
}

/** What is wrong with the params of a tools/call request, in a sentence; null when nothing is. */
function toolCallProblem(value: Record<string, unknown>): string | null {
  if (value['method'] !== 'tools/call') return null;
  const params = value['params'];
  if (!isObject(params)) return 'Invalid params: tools/call needs "params" with the tool\'s "name".';
  if (typeof params['name'] !== 'string') return 'Invalid params: "name" of tools/call must be the tool\'s name.';
  const args = params['arguments'];
  if (args === undefined || isObject(args)) return null;
  const given = Array.isArray(args) ? 'an array' : args === null ? 'null' : `a ${typeof args}`;
  return `Invalid params: "arguments" of tools/call must be an object of the tool's inputs, not ${given}.`;
}

/** True for a frame that claims to be a response (result or error, no method): never answered. */
function responseShaped(value: unknown): boolean {
  return isObject(value) && !('method' in value) && ('result' in value || 'error' in value);
}

/**
 * Checks one parsed message against the SDK's validator. An invalid one is answered with -32600 for
 * its id (null when it has none usable), except a malformed response, which is dropped: answering a
 * response could start an exchange of errors.
 */
export function checkMessage(value: unknown, parse: MessageParser): FrameCheck {
  try {
    parse(value);
    const call = paramsProblem(value);
    if (call === null) return { ok: true };
    return { ok: false, response: frameError(usableId(value), INVALID_PARAMS, call), reason: call };
  } catch {
    const reason = `Invalid Request: ${shapeProblem(value)}.`;
    if (responseShaped(value)) return { ok: false, response: null, reason };
    return { ok: false, response: frameError(usableId(value), INVALID_REQUEST, reason), reason };
  }
}

/**
 * The answer to a parsed frame that is not a valid message, or a batch (a non-empty array) with a member
 * that is not one, or null when it is valid: a batch is refused whole, naming its first invalid member.
 */
export function frameRefusal(parsed: unknown, parse: MessageParser): FrameErrorResponse | null {
  const messages = Array.isArray(parsed) && parsed.length > 0 ? parsed : [parsed];
  for (const [index, message] of messages.entries()) {
    const check = checkMessage(message, parse);
    if (check.ok) continue;
    const response = check.response ?? frameError(null, INVALID_REQUEST, check.reason);
    if (messages.length === 1) return response;
    return frameError(null, INVALID_REQUEST, `Batch member ${index}: ${response.error.message}`);
  }
  return null;
}

/** Parses `text` as JSON; a failure is answered with -32700 for the id a relaxed reading finds. */
export function parseFrame(text: string): { ok: true; value: unknown } | { ok: false; response: FrameErrorResponse } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    let id: FrameId | null = null;
    try {
      id = usableId(JSON.parse(relaxed(text)));
    } catch {
      // No id can be read: the answer carries null, as JSON-RPC prescribes.
    }
    const hint = text.startsWith('\uFEFF') ? ' (a byte order mark precedes it)' : '';
    const detail = error instanceof Error ? error.message.slice(0, 200) : 'not JSON';
    return { ok: false, response: frameError(id, PARSE_ERROR, `Parse error: the frame is not JSON${hint}: ${detail}`) };
  }
}

/**
 * A JSON-RPC error thrown from a request handler: the SDK answers it with this `code`, `message` and
 * `data` (it reads them by shape), where any other thrown value becomes -32603.
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}
