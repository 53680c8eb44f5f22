import { z } from 'zod';
import { createHash } from 'node:crypto';
import { writeCanonicalBytes } from './canonicalBytes.js';
import { canonicalByteLength, canonicalSha256 } from './canonicalJson.js';
import { canonicalDigestAsync, canonicalSha256Async } from './canonicalAsync.js';
import type { CanonicalAsyncOptions } from './canonicalAsync.js';
import { ReaError } from './reaError.js';
import type { JsonObject, JsonValue } from './json.js';

/** Lowercase hex SHA-256. */
export const Sha256HexSchema = z.string().regex(/^[0-9a-f]{64}$/, 'lowercase hex SHA-256');

/** An Evidence id: `ev_` + lowercase hex SHA-256 of the record's identity projection. */
export const EvidenceIdSchema = z
  .string()
  .regex(/^ev_[0-9a-f]{64}$/, 'ev_ followed by 64 lowercase hex digits')
  .describe('Evidence id: ev_ followed by 64 lowercase hex digits.');

/**
 * Any JSON value. Deliberately not a recursive schema, so that advertised JSON Schemas stay free of
 * recursion; canonical serialization refuses anything that is not JSON when the record is sealed.
 */
export const JsonValueSchema = z.unknown().describe('Any JSON value.') as unknown as z.ZodType<JsonValue>;

/** A JSON object (string keys, JSON values). */
export const JsonObjectSchema = z.record(z.string(), JsonValueSchema) as unknown as z.ZodType<JsonObject>;

/** What was observed: the artifact identity (never a path), or null for target-free operations. */
export const SubjectSchema = z
  .strictObject({
    format: z.string().min(1).describe('Detected format, e.g. "elf", "zip", "asar", "directory".'),
    sha256: Sha256HexSchema.describe('SHA-256 of the artifact bytes (or of the canonical inventory for a directory).'),
    size: z.number().int().nonnegative().describe('Size in bytes.'),
  })
  .nullable();
/** The artifact identity of a record, or null. */
export type Subject = z.infer<typeof SubjectSchema>;

/** The engine that produced the observation. */
export const ProviderIdentitySchema = z.strictObject({
  id: z.string().min(1),
  name: z.string().min(1),
  version: z.string().min(1),
});
/** The engine identity of a record. */
export type ProviderIdentity = z.infer<typeof ProviderIdentitySchema>;

/** The analysis profile: what settings shaped the analysis. `digest` covers name, version and settings. */
export const AnalysisProfileSchema = z
  .strictObject({
    name: z.string().min(1),
    version: z.string().min(1),
    settings: JsonObjectSchema,
    digest: Sha256HexSchema,
  })
  .nullable();
/** An analysis profile with its digest, or null. */
export type AnalysisProfile = z.infer<typeof AnalysisProfileSchema>;

/** One explicit unknown: something the observation does not cover, and why. */
export const LimitationSchema = z.strictObject({
  kind: z.string().min(1).describe('Stable kebab-case kind, e.g. "indirect-call", "budget-reached".'),
  message: z.string().min(1),
  scope: z.string().optional().describe('What the limitation applies to (a path, an address, a node id).'),
});
/** One explicit unknown of an observation. */
export type Limitation = z.infer<typeof LimitationSchema>;

/** Whether the observation is complete, and why not. `next_offset` is set by paged views. */
export const CoverageSchema = z.strictObject({
  status: z.enum(['complete', 'partial']),
  reasons: z.array(z.string()).describe('Why coverage is partial; empty when complete.'),
  next_offset: z.number().int().nonnegative().nullable().optional(),
});
/** Coverage of an observation. */
export type Coverage = z.infer<typeof CoverageSchema>;

/** Where in the subject the observation applies. */
export const LocationSchema = z.strictObject({
  kind: z.enum(['logical-path', 'address', 'file-offset', 'url', 'node']),
  value: z.string(),
  length: z.number().int().nonnegative().optional(),
});
/** Where in the subject an observation applies. */
export type Location = z.infer<typeof LocationSchema>;

/** Machine-local facts (absolute paths, host names, timestamps): kept outside the identity. */
export const LocalFactsSchema = z.record(z.string(), JsonValueSchema).optional();

const envelope = {
  schema_version: z.literal(2),
  evidence_id: EvidenceIdSchema,
  operation: z.string().regex(/^[a-z][a-z0-9_]*$/, 'snake_case operation name'),
  subject: SubjectSchema,
  provider: ProviderIdentitySchema,
  analysis_profile: AnalysisProfileSchema,
  parameters: JsonObjectSchema,
  raw_result: JsonValueSchema.nullable(),
  confidence: z.enum(['observed', 'derived', 'inferred']),
  limitations: z.array(LimitationSchema),
  coverage: CoverageSchema,
  locations: z.array(LocationSchema),
  evidence_links: z.array(EvidenceIdSchema),
  local: LocalFactsSchema,
};

/** Evidence record v2 with `normalized_result` typed by `result`. */
export function evidenceRecordSchemaFor<T extends z.ZodType>(result: T) {
  return z.strictObject({ ...envelope, normalized_result: result });
}

/** Evidence record v2 with any JSON `normalized_result`. */
export const EvidenceRecordSchema = evidenceRecordSchemaFor(JsonValueSchema);

/** A sealed Evidence record. */
export type EvidenceRecord<R = JsonValue> = Omit<z.infer<typeof EvidenceRecordSchema>, 'normalized_result'> & {
  normalized_result: R;
};

/** An observation before sealing: the record without `evidence_id` and `schema_version`. */
export type UnsignedEvidence<R = JsonValue> = Omit<EvidenceRecord<R>, 'evidence_id' | 'schema_version'>;

/** A reference to a record retained by the current session ledger. */
export const RetainedEvidenceRefSchema = z
  .strictObject({
    kind: z.literal('retained-evidence'),
    evidence_id: EvidenceIdSchema,
  })
  .describe('Reference to an Evidence record retained by this session.');
/** A `{"kind":"retained-evidence","evidence_id":"ev_…"}` reference. */
export type RetainedEvidenceRef = z.infer<typeof RetainedEvidenceRefSchema>;

/** Builds an analysis profile with its digest (SHA-256 of the canonical { name, version, settings }). */
export function createAnalysisProfile(profile: {
  name: string;
  version: string;
  settings: JsonObject;
}): NonNullable<AnalysisProfile> {
  const { name, version, settings } = profile;
  return { name, version, settings, digest: canonicalSha256({ name, version, settings }) };
}

/** The identity projection: every field but `evidence_id` and the machine-local `local` facts. */
export function identityProjection(
  record: UnsignedEvidence<unknown> | EvidenceRecord<unknown>,
): Record<string, unknown> {
  const { local: _local, ...rest } = record as Record<string, unknown> & { local?: unknown };
  delete rest['evidence_id'];
  return { ...rest, schema_version: 2 };
}

/** Computes the evidence id of a record (sealed or not). */
export function computeEvidenceId(record: UnsignedEvidence<unknown> | EvidenceRecord<unknown>): string {
  return `ev_${canonicalSha256(identityProjection(record))}`;
}

/** The schema refusal of a record; given as the input `input`, the refusal names it and its issues' paths start with it. */
function invalid(error: z.ZodError, input?: string): ReaError {
  const what = input === undefined ? 'The record' : `The ${input} record`;
  return new ReaError('invalid_request', `${what} does not match the Evidence v2 schema.`, {
    details: {
      ...(input === undefined ? {} : { input }),
      issues: error.issues.slice(0, 50).map((issue) => ({
        path: [...(input === undefined ? [] : [input]), ...issue.path.map(String)].join('.'),
        message: issue.message,
      })),
    },
  });
}

function checkProfile(profile: AnalysisProfile): void {
  if (profile === null) return;
  const computed = canonicalSha256({ name: profile.name, version: profile.version, settings: profile.settings });
  if (computed !== profile.digest) {
    throw new ReaError('evidence_integrity_mismatch', 'The analysis profile digest does not match its contents.', {
      details: { field: 'analysis_profile.digest', declared: profile.digest, computed },
    });
  }
}

/**
 * Seals an observation into an Evidence record: validates it, checks the profile digest, and computes
 * `evidence_id`. Throws `invalid_request` for a malformed observation or a non-JSON value.
 */
export function sealEvidence<R = JsonValue>(observation: UnsignedEvidence<R>): EvidenceRecord<R> {
  const draft = checkedDraft(observation);
  const identity = identityProjection(observation);
  const hash = createHash('sha256');
  let byteLength = 0;
  writeCanonicalBytes(identity, (bytes) => {
    hash.update(bytes);
    byteLength += bytes.byteLength;
  });
  const local = (observation as { local?: unknown }).local;
  return remembered(
    sealed(draft, `ev_${hash.digest('hex')}`),
    byteLength,
    local === undefined ? 0 : canonicalByteLength(local),
  );
}

/**
 * {@link sealEvidence} without holding the event loop for a large record: the evidence id is hashed
 * with {@link canonicalSha256Async}, a slice at a time. Same record and errors, plus `cancelled`
 * (`details.phase: "sealing"`) when `signal` is aborted before the id is complete.
 */
export async function sealEvidenceAsync<R = JsonValue>(
  observation: UnsignedEvidence<R>,
  signal?: AbortSignal,
): Promise<EvidenceRecord<R>> {
  const draft = checkedDraft(observation);
  const digest = await canonicalDigestAsync(identityProjection(observation), { signal });
  const local = (observation as { local?: unknown }).local;
  const localBytes = local === undefined ? 0 : (await canonicalDigestAsync(local, { signal })).byteLength;
  return remembered(sealed(draft, `ev_${digest.sha256}`), digest.byteLength, localBytes);
}

/**
 * Records sealed in this process, with the byte size of their canonical JSON and the members they were
 * sealed with: retaining such a record (the usual path: a tool seals, the host retains) needs neither a
 * second schema check nor a second hash. A member replaced after sealing makes the record a stranger
 * again, verified in full.
 */
const sealedHere = new WeakMap<object, { byteSize: number; members: Map<string, unknown> }>();

function remembered<R>(record: EvidenceRecord<R>, identityBytes: number, localBytes: number): EvidenceRecord<R> {
  const source = record as unknown as Record<string, unknown>;
  // The members outside the identity follow it: each adds `,"key":` and its value.
  let byteSize = identityBytes + Buffer.byteLength(`,"evidence_id":${JSON.stringify(record.evidence_id)}`);
  if (source['local'] !== undefined) byteSize += Buffer.byteLength(',"local":') + localBytes;
  sealedHere.set(record, { byteSize, members: new Map(Object.entries(source)) });
  return record;
}

/**
 * The size in bytes of the canonical JSON of `value` when it is a record sealed in this process and
 * unchanged at the top since (its members are the ones it was sealed with), else null: what a record
 * costs to send (or to retain) is then known without serializing it.
 */
export function sealedByteSize(value: unknown): number | null {
  if (typeof value !== 'object' || value === null) return null;
  const known = sealedHere.get(value);
  if (known === undefined) return null;
  const keys = Object.keys(value);
  if (keys.length !== known.members.size) return null;
  for (const key of keys) {
    if (known.members.get(key) !== (value as Record<string, unknown>)[key]) return null;
  }
  return known.byteSize;
}

function checkedDraft<R>(observation: UnsignedEvidence<R>) {
  const draft = { schema_version: 2 as const, evidence_id: `ev_${'0'.repeat(64)}`, ...observation };
  const parsed = EvidenceRecordSchema.safeParse(draft);
  if (!parsed.success) throw invalid(parsed.error, 'The observation');
  checkProfile(observation.analysis_profile);
  return draft;
}

function sealed<R>(draft: UnsignedEvidence<R> & { schema_version: 2 }, evidence_id: string): EvidenceRecord<R> {
  const sealed = { ...draft, evidence_id } as EvidenceRecord<R> & { local?: unknown };
  // An explicitly undefined `local` is no fact at all; drop it so the record serializes.
  if (sealed.local === undefined) delete sealed.local;
  return sealed;
}

/**
 * Serializes a schema-valid record once, hashing its identity members and counting the bytes of the
 * whole canonical record, so that verifying and measuring a record cost one pass.
 */
function hashAndMeasure(record: EvidenceRecord): { computed: string; byteSize: number } {
  const source = record as unknown as Record<string, unknown>;
  const hash = createHash('sha256');
  let byteSize = 0;
  const count = (text: string): void => {
    byteSize += Buffer.byteLength(text, 'utf8');
  };
  const countBytes = (bytes: Uint8Array): void => {
    byteSize += bytes.byteLength;
  };
  const both = (bytes: Uint8Array): void => {
    hash.update(bytes);
    byteSize += bytes.byteLength;
  };
  let firstMember = true;
  let firstIdentityMember = true;
  hash.update('{');
  count('{');
  for (const key of Object.keys(source).sort()) {
    const value = source[key];
    if (value === undefined) continue;
    const head = `${JSON.stringify(key)}:`;
    count(firstMember ? head : `,${head}`);
    firstMember = false;
    const inIdentity = key !== 'evidence_id' && key !== 'local';
    if (inIdentity) {
      hash.update(firstIdentityMember ? head : `,${head}`, 'utf8');
      firstIdentityMember = false;
    }
    writeCanonicalBytes(value, inIdentity ? both : countBytes);
  }
  hash.update('}');
  count('}');
  return { computed: `ev_${hash.digest('hex')}`, byteSize };
}

/**
 * Verifies a sealed record like {@link parseEvidence} and also returns the size in bytes of its
 * canonical JSON, in the same serialization pass. Used by the ledger; not part of the public API.
 */
export function verifyEvidence(value: unknown, input?: string): { record: EvidenceRecord; byteSize: number } {
  const known = sealedByteSize(value);
  if (known !== null) return { record: value as EvidenceRecord, byteSize: known };
  const record = checkedRecord(value, input);
  const { computed, byteSize } = hashAndMeasure(record);
  checkId(record, computed, input);
  return { record, byteSize };
}

/**
 * {@link verifyEvidence} without holding the event loop: every byte of the canonical record, its
 * `local` part included, is serialized again a slice at a time with {@link canonicalDigestAsync}. Same
 * record, size and errors, plus `cancelled` (`details.phase` from `options`) when `options.signal` is
 * aborted at a turn of the event loop. Used by the ledger; not part of the public API.
 */
export async function verifyEvidenceAsync(
  value: unknown,
  options: CanonicalAsyncOptions = {},
): Promise<{ record: EvidenceRecord; byteSize: number }> {
  const known = sealedByteSize(value);
  if (known !== null) return { record: value as EvidenceRecord, byteSize: known };
  const record = checkedRecord(value);
  const source = record as unknown as Record<string, unknown>;
  const identity: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    if (key !== 'evidence_id' && key !== 'local' && source[key] !== undefined) identity[key] = source[key];
  }
  const digest = await canonicalDigestAsync(identity, options);
  checkId(record, `ev_${digest.sha256}`);
  // The members outside the identity follow a non-empty identity: each adds `,"key":` and its value.
  let byteSize = digest.byteLength + Buffer.byteLength(`,"evidence_id":${JSON.stringify(record.evidence_id)}`);
  if (source['local'] !== undefined) {
    byteSize += Buffer.byteLength(',"local":') + (await canonicalDigestAsync(source['local'], options)).byteLength;
  }
  return { record, byteSize };
}

function checkedRecord(value: unknown, input?: string): EvidenceRecord {
  const parsed = EvidenceRecordSchema.safeParse(value);
  if (!parsed.success) throw invalid(parsed.error, input);
  const record = value as EvidenceRecord;
  checkProfile(record.analysis_profile);
  return record;
}

function checkId(record: EvidenceRecord, computed: string, input?: string): void {
  if (computed === record.evidence_id) return;
  const given = input === undefined ? '' : ` (the ${input} record)`;
  throw new ReaError('evidence_integrity_mismatch', `Evidence ${record.evidence_id}${given} does not hash to its id.`, {
    details: {
      field: 'evidence_id',
      declared: record.evidence_id,
      computed,
      ...(input === undefined ? {} : { input }),
    },
  });
}

/**
 * Parses and verifies a sealed record: schema, profile digest, and id recomputed from the identity
 * projection. A wrong id or digest is `evidence_integrity_mismatch` with `declared`, `computed` and
 * `field`; a schema violation is `invalid_request` with `details.issues` ({ path, message }). `input`
 * names the input the record was given as (`left`, `source`): the errors name it too (`details.input`,
 * and it begins each issue's path).
 */
export function parseEvidence(value: unknown, input?: string): EvidenceRecord {
  return verifyEvidence(value, input).record;
}

/**
 * {@link parseEvidence} without holding the event loop for a large record: the id is recomputed with
 * {@link canonicalSha256Async}, a slice at a time. Same record and errors, plus `cancelled` when
 * `signal` is aborted before the id is recomputed.
 */
export async function parseEvidenceAsync(
  value: unknown,
  signal?: AbortSignal,
  input?: string,
): Promise<EvidenceRecord> {
  const record = checkedRecord(value, input);
  checkId(record, `ev_${await canonicalSha256Async(identityProjection(record), { signal })}`, input);
  return record;
}
