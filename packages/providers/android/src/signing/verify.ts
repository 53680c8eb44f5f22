// Signature verification of one APK or app bundle file: the JAR signature (v1) and the APK Signature
// Scheme blocks (v2, v3, v3.1), each reported as verified, failed, absent or unsupported with a reason.
import { open } from 'node:fs/promises';
import { isReaError } from '@rea/evidence';
import { openZipEntries } from '@rea/artifact';
import { verifySigningBlock } from './block.js';
import { verifyJar } from './jar.js';
import { outcome } from './result.js';
import type { SchemeVerification } from './result.js';

export type { SchemeVerification } from './result.js';

/**
 * Verifies every signature scheme of the ZIP at `path`. A file that is not a readable ZIP reports
 * every scheme as failed with why; cancellation is `cancelled`.
 */
export async function verifySignatures(path: string, signal: AbortSignal | undefined): Promise<SchemeVerification[]> {
  let v1: SchemeVerification;
  try {
    const zip = await openZipEntries(path, signal ? { signal } : {});
    try {
      v1 = zip.complete ? await verifyJar(zip, signal) : outcome('v1', 'unsupported', 'too many entries to list');
    } finally {
      zip.close();
    }
  } catch (error) {
    if (isReaError(error) && error.code === 'cancelled') throw error;
    v1 = outcome('v1', 'failed', (error as Error).message);
  }
  const file = await open(path, 'r');
  try {
    return [v1, ...(await verifySigningBlock(file, signal))];
  } finally {
    await file.close();
  }
}
