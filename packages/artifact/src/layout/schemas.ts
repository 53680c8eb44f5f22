import { z } from 'zod';
import { EvidenceIdSchema, Sha256HexSchema } from '@rea/evidence';

/** A virtual address as a lowercase `0x` hexadecimal string. */
export const LayoutAddressSchema = z.string().regex(/^0x[0-9a-f]+$/, 'lowercase 0x hexadecimal address');

const Flags = z.strictObject({ alloc: z.boolean(), write: z.boolean(), execute: z.boolean() });

/** Header facts of `inspect_binary_layout`. */
export const LayoutHeadersSchema = z.strictObject({
  format: z.enum(['elf', 'pe', 'macho', 'macho-fat']),
  architecture: z.enum(['x86_64', 'x86', 'aarch64', 'arm', 'unknown']),
  machine: z.string().describe('Raw machine name, e.g. EM_X86_64, IMAGE_FILE_MACHINE_AMD64, CPU_TYPE_ARM64.'),
  bits: z.union([z.literal(32), z.literal(64)]),
  endianness: z.enum(['little', 'big']),
  file_type: z.string().describe('ET_DYN, MH_EXECUTE, exe, dll, …'),
  abi: z.string().nullable().describe('ELF OS ABI or PE subsystem.'),
  entry: LayoutAddressSchema.nullable(),
  image_base: LayoutAddressSchema,
  dotnet: z.boolean().describe('PE with a CLI (.NET) header.'),
  slices: z
    .array(
      z.strictObject({
        architecture: z.string(),
        offset: z.number().int().nonnegative(),
        size: z.number().int().nonnegative(),
      }),
    )
    .nullable()
    .describe('Slices of a universal Mach-O; the rest of the result describes the first x86_64 or arm64 slice.'),
});

/** The mitigations facet; null where a mitigation does not apply to the format. */
export const LayoutMitigationsSchema = z.strictObject({
  nx: z.boolean().nullable(),
  pie: z.boolean().nullable(),
  relro: z.enum(['none', 'partial', 'full']).nullable(),
  stack_canary: z.boolean().nullable(),
  fortify: z.boolean().nullable(),
  cfg: z.boolean().nullable(),
  aslr: z.boolean().nullable(),
  dep: z.boolean().nullable(),
  code_signature: z.boolean().nullable(),
  high_entropy_va: z.boolean().nullable(),
  safe_seh: z.boolean().nullable(),
});

/** The linkage facet. */
export const LayoutLinkageSchema = z.strictObject({
  kind: z.enum(['static', 'dynamic']),
  interpreter: z.string().nullable(),
  needed: z.array(z.string()),
  soname: z.string().nullable(),
  rpath: z.array(z.string()),
  runpath: z.array(z.string()),
});

const SectionSchema = z.strictObject({
  name: z.string(),
  address: LayoutAddressSchema,
  offset: z.number().int().nonnegative(),
  size: z.number().int().nonnegative(),
  file_size: z.number().int().nonnegative(),
  type: z.string(),
  flags: Flags,
});
const SegmentSchema = z.strictObject({
  type: z.string(),
  address: LayoutAddressSchema,
  offset: z.number().int().nonnegative(),
  memory_size: z.number().int().nonnegative(),
  file_size: z.number().int().nonnegative(),
  flags: z.strictObject({ read: z.boolean(), write: z.boolean(), execute: z.boolean() }),
});
const SymbolSchema = z.strictObject({
  name: z.string(),
  address: LayoutAddressSchema,
  size: z.number().int().nonnegative(),
  kind: z.enum(['function', 'object', 'other']),
  binding: z.enum(['global', 'local', 'weak']),
  defined: z.boolean(),
  source: z.enum(['symtab', 'dynsym', 'export', 'import']),
});
const ImportSchema = z.strictObject({
  name: z.string(),
  library: z.string().nullable(),
  address: LayoutAddressSchema.nullable().describe('PLT stub, IAT slot or __stubs entry the code calls through.'),
});
const ExportSchema = z.strictObject({
  name: z.string().nullable().describe('Null for a PE export by ordinal only.'),
  address: LayoutAddressSchema,
  ordinal: z.number().int().nonnegative().optional().describe('PE: the export ordinal.'),
  forwarder: z
    .string()
    .nullable()
    .optional()
    .describe('PE: the forwarder ("OTHER.Name" or "OTHER.#7") of a forwarded export, else null.'),
});

/** Counts of every list, present in every view. */
export const LayoutCountsSchema = z.strictObject({
  sections: z.number().int().nonnegative(),
  segments: z.number().int().nonnegative(),
  symbols: z.number().int().nonnegative(),
  imports: z.number().int().nonnegative(),
  exports: z.number().int().nonnegative(),
  libraries: z.number().int().nonnegative(),
});

/** The complete layout: `normalized_result` of `inspect_binary_layout` with detail "complete" and no facet. */
export const BinaryLayoutResultSchema = z.strictObject({
  view: z.literal('complete'),
  headers: LayoutHeadersSchema,
  entry: LayoutAddressSchema.nullable(),
  sections: z.array(SectionSchema),
  segments: z.array(SegmentSchema),
  symbols: z.array(SymbolSchema),
  imports: z.array(ImportSchema),
  exports: z.array(ExportSchema),
  libraries: z.array(z.string()),
  mitigations: LayoutMitigationsSchema,
  linkage: LayoutLinkageSchema,
  counts: LayoutCountsSchema,
});
/** See {@link BinaryLayoutResultSchema}. */
export type BinaryLayoutResult = z.infer<typeof BinaryLayoutResultSchema>;

/** The facets a caller can ask for alone. */
export const LayoutFacetSchema = z.enum([
  'headers',
  'sections',
  'segments',
  'symbols',
  'imports',
  'exports',
  'mitigations',
  'linkage',
]);
/** See {@link LayoutFacetSchema}. */
export type LayoutFacet = z.infer<typeof LayoutFacetSchema>;

/** One facet with the headers (`facet` given): only the named list or record is present. */
export const BinaryLayoutFacetResultSchema = z.strictObject({
  view: z.literal('facet'),
  facet: LayoutFacetSchema,
  headers: LayoutHeadersSchema,
  counts: LayoutCountsSchema,
  sections: z.array(SectionSchema).optional(),
  segments: z.array(SegmentSchema).optional(),
  symbols: z.array(SymbolSchema).optional(),
  imports: z.array(ImportSchema).optional(),
  exports: z.array(ExportSchema).optional(),
  mitigations: LayoutMitigationsSchema.optional(),
  linkage: LayoutLinkageSchema.optional(),
});
/** See {@link BinaryLayoutFacetResultSchema}. */
export type BinaryLayoutFacetResult = z.infer<typeof BinaryLayoutFacetResultSchema>;

/** The summary returned for detail "summary"; the complete record is retained by the session. */
export const BinaryLayoutSummarySchema = z.strictObject({
  view: z.literal('summary'),
  parent_evidence_id: EvidenceIdSchema,
  headers: LayoutHeadersSchema,
  counts: LayoutCountsSchema,
  libraries: z.array(z.string()),
  mitigations: LayoutMitigationsSchema,
  linkage: LayoutLinkageSchema,
  digest: Sha256HexSchema.describe('SHA-256 of the canonical JSON of the complete layout result.'),
});
/** See {@link BinaryLayoutSummarySchema}. */
export type BinaryLayoutSummary = z.infer<typeof BinaryLayoutSummarySchema>;
