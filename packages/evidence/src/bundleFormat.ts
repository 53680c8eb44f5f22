import { z } from 'zod';

/** The format tag every bundle carries in its `format` key. */
export const BUNDLE_FORMAT = 'rea-evidence-bundle';

/**
 * The bundle format version written by {@link exportBundle}.
 *
 * A bundle is the RFC 8785 canonical JSON of
 * `{"format":"rea-evidence-bundle","records":[…],"version":1}`: a UTF-8 file with exactly those three
 * keys, `records` holding sealed Evidence v2 records in ledger insertion order. Being canonical, a
 * bundle's bytes are determined by its records, and re-canonicalizing it changes nothing.
 */
export const BUNDLE_VERSION = 1;

/** The outer shape of a bundle file; records are validated one by one with `parseEvidence`. */
export const BundleEnvelopeSchema = z.strictObject({
  format: z.literal(BUNDLE_FORMAT),
  records: z.array(z.unknown()),
  version: z.literal(BUNDLE_VERSION),
});

/** Default largest bundle file {@link importBundle} reads: 256 MiB. */
export const DEFAULT_MAX_BUNDLE_BYTES = 256 * 1024 * 1024;

/** Canonical text before the records (keys in JCS order: "format" < "records" < "version"). Internal. */
export const BUNDLE_HEAD = `{"format":"${BUNDLE_FORMAT}","records":[`;
/** Canonical text after the records. Internal. */
export const BUNDLE_TAIL = `],"version":${BUNDLE_VERSION}}`;
