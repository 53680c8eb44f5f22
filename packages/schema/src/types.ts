import type { z } from 'zod';

/** A JSON Schema object as advertised: plain JSON, keyed by keyword. */
export type JsonSchema = Record<string, unknown>;

/**
 * Which advertised form of the input schemas to render. `full` (the default) keeps every description,
 * example and validation rule and shares repeated definitions; `compact` keeps each input schema
 * within {@link COMPACT_INPUT_SCHEMA_BUDGET} bytes.
 */
export type SchemaProfile = 'full' | 'compact';

/** The serialized-byte budget of every advertised input schema in the compact profile. */
export const COMPACT_INPUT_SCHEMA_BUDGET = 13312;

/** The MCP tool annotations (hints) carried unchanged into the advertised catalog. */
export interface ToolAnnotationsLike {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** One example input of a tool. `advertised: false` keeps it in the contract and its tests only. */
export interface ToolExampleLike {
  input: unknown;
  advertised?: boolean;
  description?: string;
}

/**
 * The structural description of a tool this package projects. A provider-kit tool contract
 * satisfies it as is; nothing here depends on MCP.
 */
export interface ToolDescriptor {
  name: string;
  title: string;
  description: string;
  /** Canonical input: an object schema or a union of object schemas. */
  input: z.ZodType;
  /** Schema of a successful result. */
  output: z.ZodType;
  annotations: ToolAnnotationsLike;
  examples: ReadonlyArray<ToolExampleLike>;
}

/** The outcome of one portability rule for one advertised input schema. */
export interface PortabilityRuleResult {
  /** Stable rule id, e.g. `root-type-object`. */
  rule: string;
  passed: boolean;
  /** Where and why the rule failed (absent when it passed). */
  detail?: string;
}

/** Whether an advertised input schema passes the rules mainstream model APIs enforce, rule by rule. */
export interface PortabilityReport {
  passed: boolean;
  rules: PortabilityRuleResult[];
}

/**
 * The MCP defaults of the tool hints: a client reads an omitted hint as this value, so an advertised
 * tool lists only the hints that differ from it.
 */
export const MCP_DEFAULT_HINTS: Readonly<ToolAnnotationsLike> = Object.freeze({
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
});

/** One tool as advertised in a profile. */
export interface AdvertisedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  /**
   * The tool's hints that differ from the MCP defaults ({@link MCP_DEFAULT_HINTS}); an omitted hint
   * means exactly its default, so a client reads the same four values the contract declares.
   */
  annotations: Partial<ToolAnnotationsLike>;
  /** The advertised examples: distinct valid canonical inputs, Evidence embedded only by reference. */
  examples: unknown[];
  portability: PortabilityReport;
  /** True when the input schema is the reduced compact presentation (nested validation elided). */
  reduced: boolean;
}

/** The advertised catalog of one profile. */
export interface AdvertisedCatalog {
  profile: SchemaProfile;
  /** Sorted by name. */
  tools: AdvertisedTool[];
  /**
   * Lowercase hex SHA-256 of the canonical JSON of the advertised tools, each projected to
   * `name, title, description, inputSchema, outputSchema, annotations`, in catalog order.
   */
  digest: string;
  /** Names of the tools whose input schema is advertised in reduced form (sorted). */
  reduced: string[];
}
