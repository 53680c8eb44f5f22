import type { ZipEntries } from '@rea/artifact';
import type { SdkRange } from './sdk.js';

/** The outcome of checking one signature scheme of a package. */
export interface SchemeVerification {
  scheme: 'v1' | 'v2' | 'v3' | 'v3.1';
  /**
   * `verified`: every signer's signature checks with its certificate's key and every digest matches
   * the bytes; `failed`: some check failed (`reason` says which); `absent`: the package has no
   * signature of this scheme; `unsupported`: present but not checkable here (`reason` says why).
   */
  status: 'verified' | 'failed' | 'absent' | 'unsupported';
  reason: string | null;
  /** Signers examined. */
  signers: number;
  /**
   * Per signer of a verified scheme, the Android API levels that accept its signature algorithms (see
   * ./sdk.ts); empty unless `verified`.
   */
  accepted_sdk: SdkRange[];
}

/** A scheme outcome. */
export function outcome(
  scheme: SchemeVerification['scheme'],
  status: SchemeVerification['status'],
  reason: string | null = null,
  signers = 0,
  accepted: SdkRange[] = [],
): SchemeVerification {
  return { scheme, status, reason, signers, accepted_sdk: status === 'verified' ? accepted : [] };
}

/** A failed check: thrown inside a verifier and turned into a `failed` outcome with its message. */
export class CheckFailed extends Error {}

/** Node's digest name for a JAR/PKCS #7 digest algorithm (by OID or by manifest attribute prefix). */
export const HASH_BY_OID: Readonly<Record<string, string>> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.4': 'sha224',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
  '1.2.840.113549.2.5': 'md5',
};

/**
 * How the ZIP's end record misstates the size of its central directory, in words, or null when the size
 * it declares is the one its records take (or either is unknown). unzip reads such a directory from its
 * start by its entry count, as REA does; apksigner, which reads it by its declared size, refuses the file.
 */
export function directorySizeMisstated(zip: ZipEntries | undefined): string | null {
  if (zip === undefined) return null;
  const { declaredDirectorySize: declared, directorySize: measured } = zip;
  if (declared === null || measured === null || declared === measured) return null;
  const records = zip.declaredCount === 1 ? 'its 1 record takes' : `its ${zip.declaredCount} records take`;
  return `the ZIP's end record declares a central directory of ${declared} bytes, but ${records} ${measured} bytes`;
}

/** What lies outside the ZIP archive in its file, in words, or null when the archive fills it. */
export function outsideBytes(zip: ZipEntries | undefined): string | null {
  if (zip === undefined || (zip.archiveStart === 0 && zip.trailingBytes === 0)) return null;
  const parts = [
    ...(zip.archiveStart > 0 ? [`${zip.archiveStart} bytes before its ZIP archive`] : []),
    ...(zip.trailingBytes > 0
      ? [`${zip.trailingBytes} bytes after ${zip.archiveStart > 0 ? 'it' : 'its ZIP archive'}`]
      : []),
  ];
  return `the file holds ${parts.join(' and ')}`;
}
