// The Android API levels that accept a signer's signature algorithms, as the platform's verifiers (and
// apksigner, which models them) do. A JAR (v1) signer is accepted from the level that first supports
// its SignerInfo's digest and signature algorithm pair (some pairs no level accepts), and from API 18
// only when its manifest or signature file lacks SHA-1 digests. A v2 signer is
// read from API 24, v3 from 28, v3.1 from 33; the verity algorithms from 28; a v3/v3.1 signer also
// bounds itself with the SDK range it declares.

/** API levels [min, max] accepting a signer; `min` null when none does, `max` null when unbounded. */
export interface SdkRange {
  min_sdk: number | null;
  max_sdk: number | null;
}

const DSA = '1.2.840.10040.4.1';
const EC = '1.2.840.10045.2.1';
const RSA = '1.2.840.113549.1.1.1';
const SHA1 = '1.3.14.3.2.26';
const SHA224 = '2.16.840.1.101.3.4.2.4';
const SHA256 = '2.16.840.1.101.3.4.2.1';
const SHA384 = '2.16.840.1.101.3.4.2.2';
const SHA512 = '2.16.840.1.101.3.4.2.3';
const MD5 = '1.2.840.113549.2.5';

/**
 * First API level accepting a JAR signer, by `<digest OID> <signature algorithm OID>`; null: none.
 * A pair not listed is not accepted either. These are the levels apksigner gives apksig's sample APKs
 * of each pair (every pair of its samples).
 */
const V1: Readonly<Record<string, number | null>> = {
  [`${MD5} ${RSA}`]: 1,
  [`${MD5} 1.2.840.113549.1.1.4`]: 21,
  [`${SHA1} ${RSA}`]: 1,
  [`${SHA1} 1.2.840.113549.1.1.5`]: 1,
  [`${SHA224} ${RSA}`]: 21,
  [`${SHA224} 1.2.840.113549.1.1.14`]: 21,
  [`${SHA256} ${RSA}`]: 18,
  [`${SHA256} 1.2.840.113549.1.1.11`]: 18,
  [`${SHA384} ${RSA}`]: 18,
  [`${SHA384} 1.2.840.113549.1.1.12`]: 21,
  [`${SHA512} ${RSA}`]: 18,
  [`${SHA512} 1.2.840.113549.1.1.13`]: 21,
  [`${SHA1} ${DSA}`]: 1,
  [`${SHA1} 1.2.840.10040.4.3`]: 9,
  [`${SHA224} ${DSA}`]: 22,
  [`${SHA224} 2.16.840.1.101.3.4.3.1`]: 21,
  [`${SHA256} ${DSA}`]: 22,
  [`${SHA256} 2.16.840.1.101.3.4.3.2`]: 21,
  [`${SHA384} ${DSA}`]: null,
  [`${SHA384} 2.16.840.1.101.3.4.3.3`]: null,
  [`${SHA512} ${DSA}`]: null,
  [`${SHA512} 2.16.840.1.101.3.4.3.4`]: null,
  [`${SHA1} ${EC}`]: 18,
  [`${SHA1} 1.2.840.10045.4.1`]: 18,
  [`${SHA224} ${EC}`]: 21,
  [`${SHA224} 1.2.840.10045.4.3.1`]: 21,
  [`${SHA256} ${EC}`]: 18,
  [`${SHA256} 1.2.840.10045.4.3.2`]: 21,
  [`${SHA384} ${EC}`]: 18,
  [`${SHA384} 1.2.840.10045.4.3.3`]: 21,
  [`${SHA512} ${EC}`]: 18,
  [`${SHA512} 1.2.840.10045.4.3.4`]: 21,
};

const DIGEST_NAMES: Readonly<Record<string, string>> = {
  [MD5]: 'MD5',
  [SHA1]: 'SHA-1',
  [SHA224]: 'SHA-224',
  [SHA256]: 'SHA-256',
  [SHA384]: 'SHA-384',
  [SHA512]: 'SHA-512',
};

/** `SHA-384 with DSA`: a JAR signer's digest and signature algorithms, named for a reader. */
export function v1AlgorithmName(digestOid: string, signatureOid: string): string {
  const key =
    signatureOid.startsWith('1.2.840.10040.') || signatureOid.startsWith('2.16.840.1.101.3.4.3.')
      ? 'DSA'
      : signatureOid.startsWith('1.2.840.10045.')
        ? 'ECDSA'
        : signatureOid.startsWith('1.2.840.113549.1.1.')
          ? 'RSA'
          : signatureOid;
  return `${DIGEST_NAMES[digestOid] ?? digestOid} with ${key}`;
}

/** Android reads JAR digests other than SHA-1 (SHA-256, SHA-384, SHA-512) from API 18. */
const NON_SHA1_DIGESTS_MIN_SDK = 18;

/**
 * The API levels accepting a JAR signer whose SignerInfo names `digestOid` and `signatureOid`, and
 * whose manifest and signature file give a SHA-1 digest in every section (`sha1`) or not.
 */
export function v1SignerSdk(digestOid: string, signatureOid: string, sha1: boolean): SdkRange {
  const min = V1[`${digestOid} ${signatureOid}`] ?? null;
  return { min_sdk: min === null ? null : Math.max(min, sha1 ? 1 : NON_SHA1_DIGESTS_MIN_SDK), max_sdk: null };
}

/** First API level reading each APK Signature Scheme block. */
export const SCHEME_MIN_SDK = { v2: 24, v3: 28, 'v3.1': 33 } as const;

/** First API level accepting each v2/v3 signature algorithm id (the verity ones came with v3). */
const BLOCK_ALGORITHM_MIN_SDK: Readonly<Record<number, number>> = {
  0x0101: 24,
  0x0102: 24,
  0x0103: 24,
  0x0104: 24,
  0x0201: 24,
  0x0202: 24,
  0x0301: 24,
  0x0421: 28,
  0x0423: 28,
  0x0425: 28,
};

/**
 * The API levels accepting a signer of `scheme` whose signatures use the algorithms `ids` (Android
 * takes the best one it supports) and which declares the SDK range `declared` (v3 and v3.1).
 */
export function blockSignerSdk(
  scheme: keyof typeof SCHEME_MIN_SDK,
  ids: readonly number[],
  declared: { min: number; max: number } | null,
): SdkRange {
  const supported = ids.flatMap((id) =>
    BLOCK_ALGORITHM_MIN_SDK[id] === undefined ? [] : [BLOCK_ALGORITHM_MIN_SDK[id]],
  );
  if (supported.length === 0) return { min_sdk: null, max_sdk: null };
  const min = Math.max(SCHEME_MIN_SDK[scheme], Math.min(...supported), declared?.min ?? 0);
  const max = declared === null || declared.max >= 0x7fffffff ? null : declared.max;
  return max !== null && min > max ? { min_sdk: null, max_sdk: null } : { min_sdk: min, max_sdk: max };
}
