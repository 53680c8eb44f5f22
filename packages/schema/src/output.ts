import type { z } from 'zod';
import { createHash } from 'node:crypto';
import { canonicalJson } from '@rea/evidence';
import { emitJsonSchema } from './emit.js';
import { normalizeSchema } from './normalize.js';
import { shareRepeated } from './share.js';
import { terseSchema } from './terse.js';
import type { JsonSchema } from './types.js';

/** The dialect every advertised output schema declares. */
export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/**
 * The URN prefix of a content-bound schema id; the rest is the SHA-256 of the canonical schema in
 * unpadded base64url (43 characters, all 256 bits).
 */
export const SCHEMA_ID_PREFIX = 'urn:rea:sha256:';

/** The unpadded base64url SHA-256 of the canonical JSON (RFC 8785) of `value`. */
function contentDigest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value), 'utf8').digest('base64url');
}

/** The terse body of an output schema (no `$schema`, `$id` split off), not yet shared. */
function terseBody(schema: z.ZodType): { body: JsonSchema; explicit: unknown } {
  const { $schema: _dialect, $id: explicit, ...body } = emitJsonSchema(schema, 'output');
  return { body: terseSchema(normalizeSchema(body, { explicitTypes: false })), explicit };
}

/**
 * The advertised output schema of a tool: self-contained JSON Schema 2020-12 (repeated subschemas
 * in local `$defs`, no recursion), declaring its `$schema` dialect and carrying an `$id`. Output
 * schemas are read by validators, not by the model, so they carry no annotations (description,
 * title, examples, default) and no `type` already implied by a `const` or `enum`; every validation
 * rule is kept, in the Evidence envelope as in `normalized_result`. An explicit `$id` on the zod schema (absolute, or a relative base for external references)
 * is kept as it is; otherwise the `$id` is `urn:rea:sha256:<base64url>`, the SHA-256 of the
 * canonical JSON of the schema including `$schema` and excluding `$id`, so equal schemas share an
 * identity and any change changes it. Refuses recursive or unrepresentable schemas like
 * {@link inputJsonSchema}.
 */
export function outputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { body, explicit } = terseBody(schema);
  const shared = shareRepeated(body, 'savings');
  const content: JsonSchema = { $schema: JSON_SCHEMA_DIALECT, ...shared };
  const $id = typeof explicit === 'string' ? explicit : `${SCHEMA_ID_PREFIX}${contentDigest(content)}`;
  return { $schema: JSON_SCHEMA_DIALECT, $id, ...shared };
}
