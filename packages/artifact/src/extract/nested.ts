// Reaching into nested containers during extraction: the typed refusals and the checks a container's
// bytes pass before anything inside them is planned.
import { ReaError } from '@rea/evidence';
import { containerFromHead } from '../detect.js';
import type { ZipEntryInfo } from '../engine/zip.js';
import { unsafePath } from '../errors.js';
import type { Digest } from '../hashing.js';
import { integrityMismatch } from '../integrity.js';
import type { ObservedContradiction } from '../integrity.js';
import { nestedPath, pathProblem } from '../paths.js';
import type { IntegrityPolicy } from '../schemas.js';
import { MAX_EXTRACT_DEPTH, SELECT_AS_LISTED } from './selection.js';

/**
 * The logical path of nested container `name` inside the container at `prefix`, after refusing an
 * unsafe name (`unsupported_target`, unsafe-path) and a selection nested deeper than
 * {@link MAX_EXTRACT_DEPTH} containers (`invalid_request`).
 */
export function nestedEntry(prefix: string, name: string, depth: number): string {
  const full = nestedPath(prefix, name);
  const problem = pathProblem(name);
  if (problem !== null) throw unsafePath(full, problem);
  if (depth + 1 > MAX_EXTRACT_DEPTH) {
    throw new ReaError(
      'invalid_request',
      `The selection reaches ${depth + 1} containers deep at ${full}; extraction follows at most ${MAX_EXTRACT_DEPTH}.`,
      { details: { path: full, reason: 'nesting-too-deep', limit: MAX_EXTRACT_DEPTH } },
    );
  }
  return full;
}

/** `not_found` for a selection naming a nested container that is not a file of its parent. */
export function noContainer(path: string): ReaError {
  return new ReaError('not_found', `No file entry ${JSON.stringify(path)} holds the selected nested paths.`, {
    details: { path, reason: 'no-such-entry' },
    remediation: SELECT_AS_LISTED,
  });
}

/** `target_unavailable` for an `.asar.unpacked` entry whose companion file cannot be read. */
export function companionMissing(path: string, reason: string): ReaError {
  return new ReaError('target_unavailable', `Unpacked entry ${path} cannot be extracted: ${reason}.`, {
    details: { path, reason: 'unpacked-companion-missing', unpacked: true },
    remediation: 'Extract from the application folder that holds the .asar.unpacked companion beside the archive.',
  });
}

/** What to select instead of paths inside an entry that is not a container. */
const NOT_A_CONTAINER = 'Select the entry itself, without "!/": only ZIP and ASAR entries are selected into.';

/** Refuses a ZIP entry whose bytes REA cannot decode (encrypted, or an unsupported method). */
export function refuseUnreadable(info: ZipEntryInfo, path: string): void {
  if (!info.encrypted && (info.compressionMethod === 0 || info.compressionMethod === 8)) return;
  throw new ReaError(
    'unsupported_target',
    `Entry ${JSON.stringify(path)} ${info.encrypted ? 'is encrypted' : `uses compression method ${info.compressionMethod}`}; it cannot be extracted.`,
    {
      details: { path, format: 'zip', reason: info.encrypted ? 'encrypted-entry' : 'unsupported-compression' },
      remediation: 'Select other entries: REA reads stored and deflated entries that are not encrypted.',
    },
  );
}

/**
 * What nested containers one extraction may hold in memory: `limit` bytes in all (`max_nested_bytes`),
 * of which `held` are already held. Every selected nested container stays held until the call ends.
 */
export interface NestedBudget {
  limit: number;
  held: number;
}

/** How many more bytes of nested containers may be held. */
export function nestedRoom(budget: NestedBudget): number {
  return Math.max(0, budget.limit - budget.held);
}

/**
 * `resource_constraint` (`details.resource: "memory"`, `details.budget: "max_nested_bytes"`) for the
 * nested container at `path`, `size` bytes, that does not fit in what is left of the budget.
 */
export function overNestedBudget(path: string, size: number, budget: NestedBudget): ReaError {
  const observed = budget.held + size;
  return new ReaError(
    'resource_constraint',
    budget.held === 0
      ? `Nested container ${path} is ${size} bytes; extraction holds at most ${budget.limit} bytes of nested containers in memory (max_nested_bytes).`
      : `Nested container ${path} (${size} bytes) would bring the nested containers held in memory by this extraction to ${observed} bytes; at most ${budget.limit} are held (max_nested_bytes).`,
    {
      details: { resource: 'memory', budget: 'max_nested_bytes', limit: budget.limit, observed, path },
      remediation: 'Select entries from fewer or smaller nested containers per extraction.',
    },
  );
}

/**
 * The verified bytes and format of a nested container read whole. A container whose bytes contradict
 * their declaration is never opened: fail-closed refuses with `artifact_integrity_mismatch`, and
 * under record-and-continue the container is quarantined, which refuses the selection the same way.
 * Larger than the room left in `budget`: {@link overNestedBudget}; not a ZIP or ASAR:
 * `unsupported_target`. On success the bytes are counted as held in `budget`.
 */
export function containerBytes(
  path: string,
  digest: Digest | null,
  contradiction: ObservedContradiction | null,
  policy: IntegrityPolicy,
  budget: NestedBudget,
): { format: 'zip' | 'asar'; source: Buffer } {
  if (contradiction !== null || digest === null) {
    const mismatch = integrityMismatch(contradiction!, 'extract_artifact');
    if (policy === 'fail-closed') throw mismatch;
    throw new ReaError(
      'artifact_integrity_mismatch',
      `${path} contradicts its declared integrity, so it is quarantined: nothing inside it is extracted. ${mismatch.message}`,
      { details: { ...mismatch.details, quarantined: true }, remediation: 'Obtain intact bytes of the archive.' },
    );
  }
  if (digest.collected === null) {
    if (digest.size > nestedRoom(budget)) throw overNestedBudget(path, digest.size, budget);
    throw new ReaError(
      'unsupported_target',
      `${path} is neither a ZIP nor an ASAR archive; nothing can be selected inside it.`,
      {
        details: { path, format: 'unknown', reason: 'not-an-archive' },
        remediation: NOT_A_CONTAINER,
      },
    );
  }
  const format = containerFromHead(digest.collected.subarray(0, 512));
  if (format !== 'zip' && format !== 'asar') {
    throw new ReaError('unsupported_target', `${path} is neither a ZIP nor an ASAR archive.`, {
      details: { path, format: 'unknown', reason: 'not-an-archive' },
      remediation: NOT_A_CONTAINER,
    });
  }
  budget.held += digest.collected.length;
  return { format, source: digest.collected };
}
