import { createHash, randomBytes } from 'node:crypto';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { ReaError, parseEvidence, throwIfAborted, writeCanonicalJson } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';

/** The bundle format tag. */
export const BUNDLE_FORMAT = 'rea-evidence-bundle' as const;
/** The bundle format version. */
export const BUNDLE_VERSION = 1 as const;

/** The canonical bundle object. */
export interface EvidenceBundle {
  format: typeof BUNDLE_FORMAT;
  records: EvidenceRecord[];
  version: typeof BUNDLE_VERSION;
}

/** The complete bundle of `records` (canonical key order: format, records, version). */
export function bundleOf(records: readonly EvidenceRecord[]): EvidenceBundle {
  return { format: BUNDLE_FORMAT, records: [...records], version: BUNDLE_VERSION };
}

function hostError(error: unknown, path: string): ReaError {
  const code = (error as { code?: string }).code;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return new ReaError('access_denied', `Cannot write ${path}: ${code}.`, { details: { path, reason: code } });
  }
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return new ReaError('not_found', `The directory of ${path} does not exist.`, {
      details: { path, reason: code },
    });
  }
  return new ReaError('execution_failure', `Writing ${path} failed: ${(error as Error).message}`, {
    details: { path, reason: code ?? 'unknown' },
  });
}

/**
 * Streams the canonical bundle of `records` into a staging file beside `destination`, flushes it and
 * renames it into place. Cancelling stops serialization and removes the staging file; the destination
 * changes only when a complete bundle is published.
 */
export async function exportBundle(
  records: readonly EvidenceRecord[],
  destination: string,
  options: { signal: AbortSignal },
): Promise<{ path: string; records: number; bytes: number; sha256: string }> {
  const path = resolve(destination);
  const staging = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.staging`);
  const hash = createHash('sha256');
  let bytes = 0;
  let handle: FileHandle | undefined;
  try {
    handle = await open(staging, 'wx', 0o600);
  } catch (error) {
    throw hostError(error, path);
  }
  const file = handle;
  try {
    const write = async (text: string): Promise<void> => {
      throwIfAborted(options.signal, 'export');
      const buffer = Buffer.from(text, 'utf8');
      hash.update(buffer);
      bytes += buffer.length;
      await file.write(buffer);
    };
    await write(`{"format":${JSON.stringify(BUNDLE_FORMAT)},"records":[`);
    for (let i = 0; i < records.length; i += 1) {
      const chunks: string[] = [];
      writeCanonicalJson(records[i], (chunk) => chunks.push(chunk));
      if (i > 0) await write(',');
      for (const chunk of chunks) await write(chunk);
    }
    await write(`],"version":${BUNDLE_VERSION}}`);
    await file.sync();
    await file.close();
    handle = undefined;
    throwIfAborted(options.signal, 'publication');
    await rename(staging, path);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await rm(staging, { force: true });
    throw error instanceof ReaError ? error : hostError(error, path);
  }
  return { path, records: records.length, bytes, sha256: hash.digest('hex') };
}

/**
 * Reads and validates a bundle: refuses files above `maxBytes` (`resource_constraint`, file-size), then
 * parses every record, recomputing its id (`evidence_integrity_mismatch` on a mismatch).
 */
export async function importBundle(
  path: string,
  options: { maxBytes: number; signal: AbortSignal },
): Promise<EvidenceRecord[]> {
  const absolute = resolve(path);
  let size: number;
  try {
    const info = await stat(absolute);
    if (!info.isFile()) {
      throw new ReaError('invalid_request', `${absolute} is not a regular file.`, {
        details: { path: absolute, reason: 'not-a-file' },
      });
    }
    size = info.size;
  } catch (error) {
    if (error instanceof ReaError) throw error;
    throw new ReaError('not_found', `Cannot read ${absolute}.`, {
      details: { path: absolute, reason: (error as { code?: string }).code ?? 'unreadable' },
    });
  }
  if (size > options.maxBytes) {
    throw new ReaError(
      'resource_constraint',
      `The bundle is ${size} bytes, above the ${options.maxBytes}-byte limit.`,
      {
        details: {
          resource: 'file-size',
          limit: options.maxBytes,
          observed: size,
          reported_limits: { max_bytes: options.maxBytes },
        },
      },
    );
  }
  const text = await readFile(absolute, { encoding: 'utf8', signal: options.signal });
  throwIfAborted(options.signal, 'import');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ReaError('invalid_request', `The bundle is not JSON: ${(error as Error).message}`, {
      details: { path: absolute, reason: 'malformed-json' },
    });
  }
  const bundle = parsed as Partial<EvidenceBundle> | null;
  if (
    !bundle ||
    typeof bundle !== 'object' ||
    bundle.format !== BUNDLE_FORMAT ||
    bundle.version !== BUNDLE_VERSION ||
    !Array.isArray(bundle.records)
  ) {
    throw new ReaError(
      'invalid_request',
      `${absolute} is not an Evidence bundle (format ${BUNDLE_FORMAT} v${BUNDLE_VERSION}).`,
      {
        details: { path: absolute, reason: 'not-a-bundle' },
      },
    );
  }
  return bundle.records.map((record, index) => {
    throwIfAborted(options.signal, 'validation');
    try {
      return parseEvidence(record);
    } catch (error) {
      if (error instanceof ReaError) {
        throw new ReaError(error.code, `Record ${index} of the bundle: ${error.message}`, {
          details: { ...error.details, index },
        });
      }
      throw error;
    }
  });
}
