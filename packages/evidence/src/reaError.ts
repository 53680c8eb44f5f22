import { ERROR_CODES, isErrorCode } from './errorCodes.js';
import type { ErrorCode } from './errorCodes.js';
import type { JsonObject, JsonValue } from './json.js';

const BRAND = Symbol.for('rea.error');

/** Options for a {@link ReaError}. Omitted fields take the code's documented defaults. */
export interface ReaErrorOptions {
  operation?: string | null;
  retryable?: boolean;
  remediation?: string;
  details?: JsonObject;
  cause?: unknown;
}

/**
 * The one error type of REA. `code` comes from the closed list in {@link ERROR_CODES}; `details` is
 * JSON. Use {@link isReaError} rather than `instanceof` across packages.
 */
/**
 * The remediation of an error that states none: its code's. An `invalid_request` without `issues` (a
 * refusal judged beyond the schema) is corrected as its message says, not "as the issues describe".
 */
function defaultRemediation(code: ErrorCode, details: JsonObject): string {
  if (code === 'invalid_request' && !Array.isArray(details['issues']))
    return 'Correct the input as the message says and call again.';
  return ERROR_CODES[code].remediation;
}

export class ReaError extends Error {
  readonly code: ErrorCode;
  readonly operation: string | null;
  readonly retryable: boolean;
  readonly remediation: string;
  readonly details: JsonObject;
  readonly [BRAND] = true;

  constructor(code: ErrorCode, message: string, options: ReaErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ReaError';
    this.code = code;
    this.operation = options.operation ?? null;
    this.retryable = options.retryable ?? ERROR_CODES[code].retryable;
    this.details = options.details ?? {};
    this.remediation = options.remediation ?? defaultRemediation(code, this.details);
  }

  /** A copy of this error attributed to `operation` (when it had none). */
  withOperation(operation: string): ReaError {
    if (this.operation !== null) return this;
    return new ReaError(this.code, this.message, {
      operation,
      retryable: this.retryable,
      remediation: this.remediation,
      details: this.details,
      cause: this.cause,
    });
  }
}

/** True for a ReaError from any copy of this package (brand check, not `instanceof`). */
export function isReaError(value: unknown): value is ReaError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[BRAND] === true &&
    isErrorCode((value as { code?: unknown }).code)
  );
}

/** The canonical diagnostic body. */
export interface Diagnostic {
  error: {
    code: ErrorCode;
    message: string;
    operation: string | null;
    retryable: boolean;
    remediation: string;
    details: JsonObject;
  };
}

// Errors from another realm (a vm context, a worker's DOMException) fail `instanceof Error`, so
// error-likeness is judged by shape.
function errorLike(value: unknown): { name: string; message: string; code?: unknown } | null {
  if (typeof value !== 'object' || value === null) return null;
  const { name, message } = value as { name?: unknown; message?: unknown };
  if (typeof name !== 'string' || typeof message !== 'string') return null;
  return value as { name: string; message: string; code?: unknown };
}

function describeCause(value: unknown): JsonValue {
  const error = errorLike(value);
  if (error !== null) return { name: error.name, message: error.message };
  if (typeof value === 'string') return { name: 'string', message: value };
  return { name: typeof value, message: String(value) };
}

/**
 * System errors of reading a file or device, not of REA: a read that fails on /proc/self/mem or a
 * failing disk (EIO), a device without a driver (ENXIO, ENODEV), a stale network file handle. Shared
 * with fileSystemError; not part of the package's exports.
 */
export const UNREADABLE_ERRNOS: ReadonlySet<string> = new Set(['EIO', 'ENXIO', 'ENODEV', 'ESTALE']);
/** What to do about a file that cannot be read to its end. */
export const UNREADABLE_REMEDIATION =
  'Pass a regular file that can be read to its end (not a device, FIFO or a file of /proc).';
/** The system calls that read what a user named. A write, a spawn or a folder REA makes stays internal. */
const READING = new Set(['open', 'read', 'stat', 'lstat', 'fstat', 'scandir', 'opendir', 'access', 'readlink']);

/** A failed read of a file or device as `target_unavailable`, a refused one as `access_denied`; else null. */
function systemError(error: { message: string; code?: unknown }, value: unknown, operation?: string): ReaError | null {
  const { code, syscall, path } = error as { code?: unknown; syscall?: unknown; path?: unknown };
  if (typeof code !== 'string' || typeof syscall !== 'string' || !READING.has(syscall)) return null;
  const where = typeof path === 'string' ? { path } : {};
  if (UNREADABLE_ERRNOS.has(code)) {
    return new ReaError('target_unavailable', `The target could not be read: ${error.message}.`, {
      operation: operation ?? null,
      details: { ...where, reason: code, syscall },
      remediation: UNREADABLE_REMEDIATION,
      cause: value,
    });
  }
  if (code === 'EACCES' || code === 'EPERM') {
    return new ReaError('access_denied', `The system refused access: ${error.message}.`, {
      operation: operation ?? null,
      details: { ...where, reason: code, syscall },
      cause: value,
    });
  }
  return null;
}

/**
 * Turns any thrown value into a ReaError. ReaErrors pass through; an AbortError (or an aborted
 * signal's reason) becomes `cancelled`; a failed read of a file (EIO and its kin, from a reading system
 * call) is `target_unavailable`, a refused one `access_denied`; anything else becomes `internal` with
 * `details.cause` holding its name and message — never its stack.
 */
export function normalizeError(value: unknown, operation?: string): ReaError {
  if (isReaError(value)) return operation === undefined ? value : value.withOperation(operation);
  const error = errorLike(value);
  if (error !== null && (error.name === 'AbortError' || error.code === 'ABORT_ERR')) {
    return new ReaError('cancelled', 'The operation was cancelled.', { operation: operation ?? null, cause: value });
  }
  const system = error === null ? null : systemError(error, value, operation);
  if (system !== null) return system;
  const cause = describeCause(value);
  return new ReaError('internal', 'An unexpected internal error occurred.', {
    operation: operation ?? null,
    details: { cause },
    cause: value,
  });
}

/**
 * The longest string a diagnostic carries, in UTF-16 code units: its message, remediation, operation
 * and every string in its details. Errors echo their input (a path, a name, an id); a 2 MB input must
 * not come back two or three times over in every error response.
 */
export const DIAGNOSTIC_STRING_LIMIT = 4096;

/**
 * `text` when it is at most `limit` code units long; otherwise a prefix of it (never splitting a
 * surrogate pair) followed by a marker giving the original length, so the whole stays within
 * `limit` plus about 60 characters.
 */
export function capEcho(text: string, limit: number = DIAGNOSTIC_STRING_LIMIT): string {
  if (text.length <= limit) return text;
  let cut = limit;
  const last = text.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
  return `${text.slice(0, cut)}… [${cut} of ${text.length} characters shown]`;
}

function capStrings(value: JsonValue): JsonValue {
  if (typeof value === 'string') return capEcho(value);
  if (Array.isArray(value)) return value.map(capStrings);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [capEcho(key), capStrings(entry)]));
  }
  return value;
}

/**
 * The canonical `{ "error": … }` diagnostic for any thrown value. Every string in it is capped with
 * {@link capEcho}: this is the one place both the MCP server and the CLI make their error output.
 */
export function toDiagnostic(value: unknown, operation?: string): Diagnostic {
  const error = normalizeError(value, operation);
  return {
    error: {
      code: error.code,
      message: capEcho(error.message),
      operation: error.operation === null ? null : capEcho(error.operation),
      retryable: error.retryable,
      remediation: capEcho(error.remediation),
      details: capStrings(error.details) as JsonObject,
    },
  };
}

/** Throws `cancelled` when `signal` is aborted. Call at every phase boundary of long work. */
export function throwIfAborted(signal: AbortSignal | undefined, phase?: string): void {
  if (signal?.aborted) {
    throw new ReaError('cancelled', phase ? `Cancelled during ${phase}.` : 'The operation was cancelled.', {
      details: phase ? { phase } : {},
    });
  }
}
