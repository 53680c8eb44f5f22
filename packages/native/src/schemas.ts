import { z } from 'zod';
import { AddressSchema } from './address.js';

/** Schema of {@link ProcedureSummary}. */
export const ProcedureSummarySchema = z.strictObject({
  address: AddressSchema,
  name: z.string(),
  size: z.number().int().nonnegative(),
  kind: z.enum(['function', 'import', 'thunk']),
  source: z.enum(['entry', 'symbol', 'export', 'import', 'unwind-info', 'call-target', 'code-pointer', 'engine']),
});

/** Schema of {@link ProcedureInfo}. */
export const ProcedureInfoSchema = ProcedureSummarySchema.extend({
  end: AddressSchema,
  instruction_count: z.number().int().nonnegative(),
  basic_block_count: z.number().int().nonnegative(),
  caller_count: z.number().int().nonnegative(),
  callee_count: z.number().int().nonnegative(),
  library: z.string().nullable(),
});

/** Schema of {@link NativeInstruction}. */
export const InstructionSchema = z.strictObject({
  address: AddressSchema,
  size: z.number().int().positive(),
  bytes: z.string(),
  mnemonic: z.string(),
  operands: z.string(),
});

/** Schema of {@link HighPcodeOp}. */
export const HighPcodeOpSchema = z.strictObject({
  address: AddressSchema,
  mnemonic: z.string(),
  output: z.string().nullable(),
  inputs: z.array(z.string()),
});

/** Schema of {@link BasicBlock}. */
export const BasicBlockSchema = z.strictObject({
  start: AddressSchema,
  end: AddressSchema,
  instruction_count: z.number().int().nonnegative(),
});

/** Schema of {@link FlowEdge}. */
export const FlowEdgeSchema = z.strictObject({
  from: AddressSchema,
  to: AddressSchema,
  kind: z.enum(['fallthrough', 'branch', 'conditional', 'table']),
});

/** Schema of {@link UnresolvedTransfer}. */
export const UnresolvedSchema = z.strictObject({
  site: AddressSchema,
  kind: z.enum(['indirect-call', 'indirect-jump']),
  instruction: z.string(),
});

/** Schema of {@link CallSite}. */
export const CallSiteSchema = z.strictObject({
  site: AddressSchema,
  procedure: AddressSchema,
  name: z.string().nullable(),
  kind: z.enum(['call', 'tail-call', 'import-call']),
});

/** Schema of {@link NativeReference}. */
export const ReferenceSchema = z.strictObject({
  from: AddressSchema,
  to: AddressSchema,
  kind: z.enum(['call', 'jump', 'data', 'code-pointer']),
  from_procedure: AddressSchema.nullable(),
});

/** Schema of {@link NativeString}. */
export const StringSchema = z.strictObject({
  address: AddressSchema,
  value: z.string(),
  encoding: z.enum(['ascii', 'utf-16le']),
  section: z.string().nullable(),
});

/** Schema of {@link NativeName}. */
export const NameSchema = z.strictObject({
  address: AddressSchema,
  name: z.string(),
  kind: z.enum(['function', 'import', 'export', 'object', 'label']),
});

/** Schema of {@link NativeSegment}. */
export const SegmentSchema = z.strictObject({
  name: z.string(),
  start: AddressSchema,
  end: AddressSchema,
  size: z.number().int().nonnegative(),
  file_offset: z.number().int().nonnegative().nullable(),
  readable: z.boolean(),
  writable: z.boolean(),
  executable: z.boolean(),
});

/** Schema of {@link NativeDocument}. */
export const DocumentSchema = z.strictObject({
  name: z.string(),
  format: z.string(),
  architecture: z.string(),
  bits: z.number().int(),
  endianness: z.enum(['little', 'big']),
  entry: AddressSchema.nullable(),
  image_base: AddressSchema,
});

/** A page of rows: `total` matching rows, `offset` of the first row returned, `next_offset` or null. */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.strictObject({
    items: z.array(item),
    total: z.number().int().nonnegative(),
    offset: z.number().int().nonnegative(),
    next_offset: z.number().int().nonnegative().nullable(),
  });
}

/** The shared paging inputs. */
export const pagingInput = {
  offset: z.number().int().nonnegative().default(0).describe('Index of the first row to return (default 0).'),
  limit: z.number().int().min(1).max(1000).default(100).describe('Maximum rows to return, 1–1000 (default 100).'),
};

/** A procedure selector: its entry address or its exact name. */
export const ProcedureSelectorSchema = z
  .string()
  .min(1)
  .describe('The procedure: its entry address (lowercase 0x hex, e.g. "0x401126") or its exact name (e.g. "main").');

/** A limitation carried on a node of a derived view (same shape as an Evidence limitation). */
export const LimitationSchemaLike = z.strictObject({
  kind: z.string().min(1),
  message: z.string().min(1),
  scope: z.string().optional(),
});
