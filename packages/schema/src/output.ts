import type { z } from 'zod';
import { canonicalSha256 } from '@rea/evidence';
import { emitJsonSchema } from './emit.js';
import { normalizeSchema } from './normalize.js';
import { shareRepeated } from './share.js';
import type { JsonSchema } from './types.js';

/** The dialect every advertised output schema declares. */
export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** The URN prefix of a content-bound schema id; the rest is the lowercase hex SHA-256. */
export const SCHEMA_ID_PREFIX = 'urn:rea:schema:sha256:';

/**
 * The advertised output schema of a tool: self-contained JSON Schema 2020-12 (repeated subschemas
 * in local `$defs`, no recursion), declaring its `$schema` dialect and carrying an `$id`. An
 * explicit `$id` on the zod schema (absolute, or a relative base for external references) is kept
 * as it is; otherwise the `$id` is `urn:rea:schema:sha256:<hex>`, the SHA-256 of the canonical JSON
 * of the schema including `$schema` and excluding `$id`, so equal schemas share an identity and any
 * change changes it. Refuses recursive or unrepresentable schemas like {@link inputJsonSchema}.
 */
export function outputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, $id: explicit, ...body } = emitJsonSchema(schema, 'output');
  const shared = shareRepeated(normalizeSchema(body, { explicitTypes: false }));
  const content: JsonSchema = { $schema: JSON_SCHEMA_DIALECT, ...shared };
  const $id = typeof explicit === 'string' ? explicit : `${SCHEMA_ID_PREFIX}${canonicalSha256(content)}`;
  return { $schema: JSON_SCHEMA_DIALECT, $id, ...shared };
}
