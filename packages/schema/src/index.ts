/**
 * @rea/schema — every export of this module is public API.
 *
 * Projects zod tool contracts into the JSON Schemas a host advertises: full and compact input
 * profiles, self-contained output schemas with content-bound ids, advertised examples, portability
 * reports and the catalog digest. Knows nothing of MCP: a tool is any {@link ToolDescriptor}.
 */
export { COMPACT_INPUT_SCHEMA_BUDGET, MCP_DEFAULT_HINTS } from './types.js';
export type {
  AdvertisedCatalog,
  AdvertisedTool,
  JsonSchema,
  PortabilityReport,
  PortabilityRuleResult,
  SchemaProfile,
  ToolAnnotationsLike,
  ToolDescriptor,
  ToolExampleLike,
} from './types.js';
export { inputJsonSchema } from './input.js';
export { JSON_SCHEMA_DIALECT, SCHEMA_ID_PREFIX, outputJsonSchema } from './output.js';
export { advertisedExample, isEmbeddedEvidence, projectExamples } from './examples.js';
export type { ExampleExclusion, ExampleProjection } from './examples.js';
export { MAX_PORTABLE_DEPTH, PORTABILITY_RULES, PORTABLE_TOOL_NAME, checkPortability } from './portability.js';
export { advertiseCatalog, advertiseTool, catalogDigest } from './catalog.js';
