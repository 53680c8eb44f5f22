import { z } from 'zod';
import { canonicalSha256 } from '@rea/evidence';
import type { JsonObject, JsonValue } from '@rea/evidence';
import type { AnyToolContract } from '@rea/provider-kit';
/** The input-schema profile the catalog is advertised in. */
export type SchemaProfile = 'full' | 'compact';

/** One advertised tool, as `tools/list` sends it (plus the examples and whether it was reduced). */
export interface AdvertisedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonObject;
  outputSchema: JsonObject;
  annotations: JsonObject;
  examples: JsonValue[];
  reduced: boolean;
}

/** The advertised catalog in one profile, with its digest. */
export interface AdvertisedCatalog {
  profile: SchemaProfile;
  tools: AdvertisedTool[];
  digest: string;
  reduced: string[];
}

function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const json = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as JsonObject;
  return json;
}

/** Presents a root union as one object: merged properties, shared required fields. */
function flattenRoot(schema: JsonObject): JsonObject {
  const members = (schema['anyOf'] ?? schema['oneOf']) as JsonObject[] | undefined;
  if (!Array.isArray(members)) return schema;
  const properties: JsonObject = {};
  let required: string[] | null = null;
  for (const member of members) {
    Object.assign(properties, (member['properties'] as JsonObject | undefined) ?? {});
    const names = (member['required'] as string[] | undefined) ?? [];
    required = required === null ? [...names] : required.filter((name) => names.includes(name));
  }
  const { anyOf: _a, oneOf: _o, ...rest } = schema;
  return { ...rest, type: 'object', properties, required: required ?? [] };
}

/**
 * Projects contracts into their advertised form. Examples that are marked `advertised: false` stay
 * out; the rest are attached to the input schema as JSON Schema `examples`.
 */
export function advertiseCatalog(tools: readonly AnyToolContract[], profile: SchemaProfile): AdvertisedCatalog {
  const advertised = tools.map((tool): AdvertisedTool => {
    const examples = tool.examples
      .filter((example: { advertised?: boolean }) => example.advertised !== false)
      .map((example: { input: unknown }) => example.input as JsonValue);
    const input = flattenRoot(toSchema(tool.input, 'input'));
    return {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: { ...input, examples },
      outputSchema: toSchema(tool.output, 'output'),
      annotations: { title: tool.title, ...tool.annotations },
      examples,
      reduced: false,
    };
  });
  return { profile, tools: advertised, digest: canonicalSha256(advertised), reduced: [] };
}
