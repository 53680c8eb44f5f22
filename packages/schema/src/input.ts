import type { z } from 'zod';
import { emitJsonSchema } from './emit.js';
import { normalizeSchema } from './normalize.js';
import { mergeRootUnion } from './rootUnion.js';
import { shareRepeated } from './share.js';
import { compactInput } from './compact.js';
import { COMPACT_INPUT_SCHEMA_BUDGET } from './types.js';
import type { JsonSchema, SchemaProfile } from './types.js';

/**
 * The portable input schema DAG every profile starts from: zod's input JSON Schema with
 * definitions resolved (recursion refused), normalized types, and a root union merged into one
 * object. No `$schema` keyword: MCP input schemas default to JSON Schema 2020-12.
 */
export function portableInput(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...root } = emitJsonSchema(schema, 'input');
  return mergeRootUnion(normalizeSchema(root, { explicitTypes: true }));
}

/**
 * The advertised JSON Schema (2020-12) of a tool's canonical input in `profile`.
 *
 * - `full`: complete validation, descriptions and literal examples kept; repeated subschemas shared
 *   through `$defs` (referred to without sibling keywords); a root union presented as one object.
 * - `compact`: the same, with nested annotations dropped and every reference inlined, within
 *   {@link COMPACT_INPUT_SCHEMA_BUDGET} bytes; `reduced: true` when only the reduced presentation fits.
 *
 * Accepts every input the canonical schema accepts. Refuses, with `invalid_request`, a recursive
 * schema (`details.reason: "recursive-schema"`), a type JSON Schema cannot express
 * (`"unrepresentable-schema"`), a root that is not an object or a union of objects
 * (`"input-not-object"`), and a schema that cannot fit the budget (`"schema-too-large"`).
 */
export function inputJsonSchema(
  schema: z.ZodType,
  profile: SchemaProfile,
): { schema: Record<string, unknown>; reduced: boolean } {
  const portable = portableInput(schema);
  if (profile === 'compact') return compactInput(portable, COMPACT_INPUT_SCHEMA_BUDGET);
  return { schema: shareRepeated(portable), reduced: false };
}
