import { z } from 'zod';
import { Sha256HexSchema } from '@rea/evidence';
import { AddressSchema } from '../address.js';
import {
  BasicBlockSchema,
  CallSiteSchema,
  DocumentSchema,
  FlowEdgeSchema,
  HighPcodeOpSchema,
  InstructionSchema,
  NameSchema,
  ProcedureInfoSchema,
  ProcedureSummarySchema,
  ReferenceSchema,
  SegmentSchema,
  StringSchema,
  UnresolvedSchema,
} from '../schemas.js';

import { BRIDGE_PROTOCOL } from './constants.js';

export { BRIDGE_PROTOCOL, BRIDGE_SOCKET_ENV, BRIDGE_TOKEN_ENV, MAX_LINE_BYTES } from './constants.js';

/** The first line the engine sends once the target is imported and analysed. */
export const HelloSchema = z.strictObject({
  type: z.literal('hello'),
  protocol: z.literal(BRIDGE_PROTOCOL),
  token: z.string().min(1),
  engine: z.strictObject({ name: z.string().min(1), version: z.string().min(1) }),
  /** SHA-256 of the bytes the engine imported (lowercase hex). */
  imported_sha256: Sha256HexSchema,
});

/** The engine's hello. */
export type BridgeHello = z.infer<typeof HelloSchema>;

/** An answer to request `id`: a result, or an error the engine reports. */
export const ResponseSchema = z.union([
  z.strictObject({ id: z.number().int().positive(), result: z.unknown() }),
  z.strictObject({
    id: z.number().int().positive(),
    error: z.strictObject({ code: z.enum(['not_found', 'unsupported', 'engine']), message: z.string() }),
  }),
]);

const page = <T extends z.ZodType>(item: T) =>
  z.strictObject({
    items: z.array(item),
    total: z.number().int().nonnegative(),
    next_offset: z.number().int().nonnegative().nullable(),
  });

/** Every method of the protocol with the schema of its result. */
export const BRIDGE_RESULTS = {
  health: z.strictObject({ status: z.literal('ready') }),
  shutdown: z.null(),
  document: DocumentSchema,
  procedures: page(ProcedureSummarySchema),
  procedure: ProcedureInfoSchema.nullable(),
  containing_procedure: ProcedureSummarySchema.nullable(),
  instructions: page(InstructionSchema),
  control_flow: z.strictObject({
    blocks: z.array(BasicBlockSchema),
    edges: z.array(FlowEdgeSchema),
    unresolved: z.array(UnresolvedSchema),
  }),
  callers: z.array(CallSiteSchema),
  callees: z.strictObject({ calls: z.array(CallSiteSchema), unresolved: z.array(UnresolvedSchema) }),
  references: z.strictObject({ to: z.array(ReferenceSchema), from: z.array(ReferenceSchema) }),
  procedure_references: z.array(ReferenceSchema),
  strings: page(StringSchema),
  string_at: StringSchema.nullable(),
  names: page(NameSchema),
  name_at: z.string().nullable(),
  address_of: AddressSchema.nullable(),
  segments: z.array(SegmentSchema),
  is_mapped: z.boolean(),
  pseudocode: z.strictObject({ language: z.string().min(1), text: z.string() }),
  high_pcode: page(HighPcodeOpSchema),
  comments: z.strictObject({ comment: z.string().nullable(), inline_comment: z.string().nullable() }),
  bookmarks: z.array(z.strictObject({ category: z.string(), text: z.string() })),
} as const;

/** A protocol method name. */
export type BridgeMethod = keyof typeof BRIDGE_RESULTS;

/** The result type of `method`. */
export type BridgeResult<M extends BridgeMethod> = z.output<(typeof BRIDGE_RESULTS)[M]>;
