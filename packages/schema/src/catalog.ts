import { ReaError, canonicalSha256, isReaError } from '@rea/evidence';
import { inputJsonSchema } from './input.js';
import { outputJsonSchema } from './output.js';
import { projectExamples } from './examples.js';
import { checkPortability } from './portability.js';
import { MCP_DEFAULT_HINTS } from './types.js';
import type {
  AdvertisedCatalog,
  AdvertisedTool,
  JsonSchema,
  SchemaProfile,
  ToolAnnotationsLike,
  ToolDescriptor,
} from './types.js';

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/** The hints of `annotations` that differ from the MCP defaults, in the order MCP lists them. */
function advertisedHints(annotations: ToolAnnotationsLike): Partial<ToolAnnotationsLike> {
  const out: Partial<ToolAnnotationsLike> = {};
  for (const hint of HINTS) if (annotations[hint] !== MCP_DEFAULT_HINTS[hint]) out[hint] = annotations[hint];
  return out;
}

/** Places the advertised examples on the root of a full-profile input schema, after its description. */
function withExamples(schema: JsonSchema, examples: unknown[]): JsonSchema {
  if (examples.length === 0) return schema;
  const out: JsonSchema = {};
  let placed = false;
  for (const [key, value] of Object.entries(schema)) {
    if (!placed && key !== 'type' && key !== 'description') {
      out['examples'] = examples;
      placed = true;
    }
    out[key] = value;
  }
  if (!placed) out['examples'] = examples;
  return out;
}

/**
 * The digest of an advertised catalog: lowercase hex SHA-256 of the canonical JSON (RFC 8785) of
 * the tools in order, each as `{ name, title, description, inputSchema, outputSchema, annotations }`.
 */
export function catalogDigest(tools: readonly AdvertisedTool[]): string {
  return canonicalSha256(
    tools.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({
      name,
      title,
      description,
      inputSchema,
      outputSchema,
      annotations: { ...annotations },
    })),
  );
}

/** Projects one tool (see {@link advertiseCatalog}). */
export function advertiseTool(tool: ToolDescriptor, profile: SchemaProfile): AdvertisedTool {
  try {
    const { advertised } = projectExamples(tool.examples, tool.input);
    const input = inputJsonSchema(tool.input, profile);
    const inputSchema = profile === 'full' ? withExamples(input.schema, advertised) : input.schema;
    return {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema,
      outputSchema: outputJsonSchema(tool.output),
      annotations: advertisedHints(tool.annotations),
      examples: advertised,
      portability: checkPortability(tool.name, inputSchema),
      reduced: input.reduced,
    };
  } catch (error) {
    if (isReaError(error)) {
      throw new ReaError(error.code, `Tool ${tool.name}: ${error.message}`, {
        details: { ...error.details, tool: tool.name },
        remediation: error.remediation,
        cause: error,
      });
    }
    throw error;
  }
}

/**
 * The advertised catalog of `tools` in `profile`: every tool, sorted by name, with its advertised
 * input schema (see {@link inputJsonSchema}; in the full profile the advertised examples sit on the
 * root as `examples`), its output schema ({@link outputJsonSchema}), the hints that differ from the
 * MCP defaults ({@link MCP_DEFAULT_HINTS}), advertised
 * examples, portability report and whether it is reduced; the catalog digest ({@link catalogDigest})
 * and the sorted names of the reduced tools. Both profiles list the same tools with the same output
 * schemas and annotations. Two tools with one name are refused with `invalid_request`
 * (`details.reason: "duplicate-tool"`); a tool whose schema cannot be projected is refused with the
 * projection's error, naming the tool in `details.tool`.
 */
export function advertiseCatalog(tools: readonly ToolDescriptor[], profile: SchemaProfile): AdvertisedCatalog {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (let i = 1; i < sorted.length; i += 1) {
    if (sorted[i]!.name === sorted[i - 1]!.name) {
      throw new ReaError('invalid_request', `Two tools are named ${sorted[i]!.name}.`, {
        details: { reason: 'duplicate-tool', tool: sorted[i]!.name },
      });
    }
  }
  const advertised = sorted.map((tool) => advertiseTool(tool, profile));
  return {
    profile,
    tools: advertised,
    digest: catalogDigest(advertised),
    reduced: advertised.filter((tool) => tool.reduced).map((tool) => tool.name),
  };
}
