import { z } from 'zod';
import { Sha256HexSchema } from '@rea/evidence';
import { IntegrityContradictionSchema, IntegrityPolicySchema } from '@rea/artifact';

const line = z.number().int().positive().describe('1-based line.');
const column = z.number().int().nonnegative().describe('0-based column in UTF-16 code units.');
const nodeId = z.string().min(1).describe('Stable node id: same input, same id.');

/** Where in a file something was observed. */
export const SourcePositionSchema = z.strictObject({ node_id: nodeId, line, column });

/** One file of the application that the analysis classified. */
export const AssetSchema = z.strictObject({
  node_id: nodeId,
  path: z.string().describe('Logical path inside the input ("!/" separates nested containers).'),
  kind: z.enum(['html', 'javascript', 'css', 'manifest', 'source-map', 'wasm', 'native-addon']),
  size: z.number().int().nonnegative(),
  sha256: Sha256HexSchema.nullable(),
  unpacked: z.boolean().describe('Stored in an .asar.unpacked companion.'),
});
/** See {@link AssetSchema}. */
export type Asset = z.infer<typeof AssetSchema>;

/** One import of a module: what it names, how, and what it resolved to. */
export const EdgeSchema = z.strictObject({
  from: nodeId,
  to: nodeId.nullable().describe('The module, built-in or package node; null when unresolved.'),
  specifier: z.string(),
  kind: z
    .enum(['require', 'import', 'dynamic-import', 'export-from', 'bundler-require', 'preload'])
    .describe('preload: a file a bundler loads beside a dynamic import (Vite).'),
  target_kind: z.enum(['module', 'builtin', 'package', 'unresolved']),
  line,
  column,
});
/** See {@link EdgeSchema}. */
export type Edge = z.infer<typeof EdgeSchema>;

/** One export of a module: its name, module system, value kind and function arity. */
export const ExportSchema = z.strictObject({
  name: z.string(),
  system: z.enum(['esm', 'commonjs']),
  value_kind: z.enum(['function', 'class', 'value', 'reexport', 'unknown']),
  arity: z.number().int().nonnegative().nullable(),
});
/** See {@link ExportSchema}. */
export type ExportShape = z.infer<typeof ExportSchema>;

/** The bundler modules were recovered from; `source-map`: from a map's ranges, no marker names the bundler. */
export const BundlerSchema = z.enum(['webpack', 'esbuild', 'browserify', 'parcel', 'rollup', 'vite', 'source-map']);

/** How a JavaScript file's source map was found. */
export const SourceMapLinkSchema = z.strictObject({
  status: z.enum(['none', 'inline', 'external', 'unresolved']),
  reference: z.string().nullable().describe('The sourceMappingURL (data: URLs shortened), null when none.'),
  node_id: nodeId.nullable().describe('The source-map asset, for an external map inside the input.'),
  reason: z.string().nullable().describe('Why an unresolved map could not be read.'),
  source_count: z.number().int().nonnegative(),
});

/** A JavaScript file of the input as a module of the graph. */
export const FileModuleSchema = z.strictObject({
  node_id: nodeId,
  path: z.string(),
  source_type: z.enum(['module', 'script']).nullable().describe('null when the file could not be parsed.'),
  bundler: BundlerSchema.nullable(),
  roles: z.array(z.enum(['main', 'preload', 'renderer'])),
  exports: z.array(ExportSchema),
  builtins: z.array(z.string()).describe('Node built-in modules this file requires or imports.'),
  source_map: SourceMapLinkSchema,
});
/** See {@link FileModuleSchema}. */
export type FileModule = z.infer<typeof FileModuleSchema>;

/** A module recovered from a bundler's runtime shape inside a file. */
export const BundledModuleSchema = z.strictObject({
  node_id: nodeId,
  file: nodeId.describe('The file module that holds it.'),
  bundler: BundlerSchema,
  module_id: z
    .string()
    .describe("The bundler's id for the module (a path or a number; the map's source name for source-map modules)."),
  start_line: line,
  end_line: line,
  exports: z.array(ExportSchema),
  builtins: z.array(z.string()),
  content_sha256: Sha256HexSchema.describe('SHA-256 of the text it spans.'),
  structure_sha256: Sha256HexSchema.describe(
    'SHA-256 of its syntax without numbers and local names: stable across renumbered ids and renamed locals.',
  ),
});
/** See {@link BundledModuleSchema}. */
export type BundledModule = z.infer<typeof BundledModuleSchema>;

/** A source module named by a source map. */
export const SourceModuleSchema = z.strictObject({
  node_id: nodeId,
  source: z.string().describe('The source as the map names it (sourceRoot applied).'),
  map: nodeId.describe('The file module whose map names it.'),
  has_content: z.boolean().describe('The map carries its sourcesContent.'),
  content_sha256: Sha256HexSchema.nullable(),
});
/** See {@link SourceModuleSchema}. */
export type SourceModule = z.infer<typeof SourceModuleSchema>;

/** A string literal (bounded: long values are cut and say so). */
export const StringFactSchema = SourcePositionSchema.extend({
  value: z.string(),
  truncated: z.boolean(),
});
/** A URL found in a string literal or template, with its host. */
export const UrlFactSchema = SourcePositionSchema.extend({
  url: z
    .string()
    .describe('The URL; in a template, each substitution is written ${…} (the static text around it is exact).'),
  host: z.string().nullable().describe('null when it cannot be read, or a substitution is part of it.'),
});
/** An Electron IPC site: the API and the channel (null when computed at run time). */
export const IpcFactSchema = SourcePositionSchema.extend({ api: z.string(), channel: z.string().nullable() });
/** A site that turns data into code. */
export const DynamicCodeFactSchema = SourcePositionSchema.extend({
  kind: z.enum(['eval', 'function-constructor', 'string-timer', 'vm']),
});

/** A call or assignment with a side effect outside the script, by category. */
export const EffectFactSchema = SourcePositionSchema.extend({
  category: z.enum(['network', 'filesystem', 'process', 'dom']),
  api: z.string().describe('The called name (fetch, fs.writeFile, child_process.spawn, document.write, innerHTML).'),
});

/** A feature-flag check (an SDK call naming the flag) or an environment variable read as a flag. */
export const FeatureFlagFactSchema = SourcePositionSchema.extend({
  key: z.string().describe('The flag key, or the environment variable.'),
  provider: z.enum([
    'launchdarkly',
    'unleash',
    'growthbook',
    'statsig',
    'split',
    'optimizely',
    'openfeature',
    'flagsmith',
    'configcat',
    'env',
  ]),
  api: z.string().describe('The called name (ldClient.variation, useFlag) or process.env / import.meta.env.'),
});

/** A package manifest found in the input. */
export const ManifestSchema = z.strictObject({
  node_id: nodeId,
  path: z.string(),
  name: z.string().nullable(),
  version: z.string().nullable(),
  main: z.string().nullable(),
  dependencies: z.record(z.string(), z.string()),
});

/** An HTML entry and the scripts and stylesheets it loads. */
export const HtmlEntrySchema = z.strictObject({
  node_id: nodeId,
  path: z.string(),
  scripts: z.array(z.strictObject({ src: z.string(), node_id: nodeId.nullable() })),
  inline_script_count: z.number().int().nonnegative(),
  stylesheets: z.array(z.strictObject({ href: z.string(), node_id: nodeId.nullable() })),
});

/** An Electron role with the observation that assigned it. */
export const RoleSchema = z.strictObject({
  role: z.enum(['main', 'preload', 'renderer']),
  node_id: nodeId,
  evidence: z.string().describe('What assigned the role (the manifest main field, a webPreferences.preload, …).'),
});

/** Coverage of one phase of the analysis. */
export const PhaseCoverageSchema = z.strictObject({
  phase: z.enum(['read', 'inventory', 'parse', 'bundles', 'source-maps', 'graph', 'electron']),
  status: z.enum(['complete', 'partial']),
  reasons: z.array(z.string()),
});

/** An explicit unknown about one file or node. */
export const UnknownSchema = z.strictObject({
  scope: z.string().describe('The node id or logical path it applies to.'),
  kind: z.string().describe('Stable kebab-case kind, e.g. "unparsable", "not-utf8", "minified-without-source-map".'),
  message: z.string(),
});

/** `normalized_result` of `analyze_javascript_application` with `detail: "complete"`. */
export const JavascriptApplicationSchema = z.strictObject({
  view: z.literal('complete'),
  input_format: z.enum(['directory', 'asar', 'zip', 'file']),
  integrity_policy: IntegrityPolicySchema,
  electron: z.boolean().describe('True when the application uses Electron (an electron import or dependency).'),
  roles: z.array(RoleSchema),
  assets: z.array(AssetSchema),
  manifests: z.array(ManifestSchema),
  html_entries: z.array(HtmlEntrySchema),
  modules: z.array(FileModuleSchema),
  bundled_modules: z.array(BundledModuleSchema),
  source_modules: z.array(SourceModuleSchema),
  edges: z.array(EdgeSchema),
  strings: z.array(StringFactSchema),
  urls: z.array(UrlFactSchema),
  hosts: z.array(z.string()).describe('Distinct hosts of every URL, sorted.'),
  ipc: z.array(IpcFactSchema),
  dynamic_code: z.array(DynamicCodeFactSchema),
  effects: z.array(EffectFactSchema).describe('Side-effect sites; node_id is the innermost (bundled) module.'),
  feature_flags: z.array(FeatureFlagFactSchema).describe('Flag checks and env flags; node_id is the innermost module.'),
  phases: z.array(PhaseCoverageSchema),
  unknowns: z.array(UnknownSchema),
  integrity_contradictions: z.array(IntegrityContradictionSchema),
});
/** See {@link JavascriptApplicationSchema}. */
export type JavascriptApplication = z.infer<typeof JavascriptApplicationSchema>;
