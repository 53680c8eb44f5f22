import type {
  EvidenceToolDefinition,
  Observation,
  ToolContext,
  ToolContract,
  ToolEffects,
  ToolExample,
} from '@rea/provider-kit';
import { AddressSchema } from '../address.js';
import { ProcedureSelectorSchema, pageSchema, pagingInput } from '../schemas.js';
import type { NativeCapability, NativePort, Page, ProcedureInfo } from '../port.js';
import {
  at,
  checkedAddress,
  defineTool,
  nativeBase,
  observe,
  pageCoverage,
  pageResult,
  portOf,
  requireCapability,
  resolveProcedure,
  z,
} from './common.js';
import type { NativeOutcome } from './common.js';

/** What a {@link portTool} declares: a native tool's contract, the capability it needs, and its body. */
export interface PortToolDefinition<I extends z.ZodType, R extends z.ZodType> extends Omit<
  EvidenceToolDefinition<I, R>,
  'run' | 'effects' | 'availability' | 'produces'
> {
  /** Defaults to the native read effects; a tool that also moves session state (the cursor) says so here. */
  effects?: ToolEffects;
  /** The port capability the tool reads; without it the call fails with `capability_unavailable`. */
  capability: NativeCapability;
  /** The body, given the bound port once it is known to declare `capability`. */
  run: (input: z.output<I>, port: NativePort, context: ToolContext) => Promise<Observation<z.input<R>>>;
}

/**
 * Declares a native read tool gated on one port capability: the shared native effects (unless
 * `effects` overrides them) and availability; at call time, the bound port (`target_unavailable`
 * without one), checked for `capability` (`capability_unavailable` without it) before `run` sees it.
 */
export function portTool<I extends z.ZodType, R extends z.ZodType>(
  definition: PortToolDefinition<I, R>,
): ToolContract<I, R> {
  const { capability, run, ...contract } = definition;
  return defineTool({
    ...nativeBase,
    ...contract,
    run: async (input, context) => {
      const port = portOf(context);
      requireCapability(context, port, capability);
      await port.prepare?.(context);
      return run(input, port, context);
    },
  });
}

/** The input shape of a paged tool: its own properties first, then `offset` and `limit`. */
export type PagedShape<E extends z.ZodRawShape> = E & typeof pagingInput;

/** The schema of a paged tool's input. */
export type PagedInput<E extends z.ZodRawShape> = z.ZodObject<PagedShape<E>, z.core.$strict>;

/** The schema of a paged tool's result: one page of `T` rows. */
export type PagedResult<T extends z.ZodType> = ReturnType<typeof pageSchema<T>>;

/** What a {@link pagedPortTool} declares: only what differs between one paged listing and the next. */
export interface PagedPortToolDefinition<T extends z.ZodType, E extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  /** The port capability the listing reads. */
  capability: NativeCapability;
  /** Schema of one row; the result is `pageSchema(item)`. */
  item: T;
  /** Input properties besides the paging ones (`offset`, `limit`), which follow them. */
  input?: E;
  examples: ReadonlyArray<ToolExample<z.input<PagedInput<NoInfer<E>>>>>;
  /** Reads one page from the port for the parsed input. */
  fetch: (
    port: NativePort,
    input: z.output<PagedInput<NoInfer<E>>>,
    signal: AbortSignal,
  ) => Promise<Page<z.input<NoInfer<T>>>>;
}

/**
 * Declares a capability-gated, offset-paginated native listing: input `{ ...input, offset, limit }`,
 * result `pageSchema(item)`, one page from `fetch`, recorded with its offset and with coverage
 * partial (carrying `next_offset`) while rows remain.
 */
export function pagedPortTool<T extends z.ZodType, E extends z.ZodRawShape = Record<never, never>>(
  definition: PagedPortToolDefinition<T, E>,
): ToolContract<PagedInput<E>, PagedResult<T>> {
  const { capability, item, input: own, fetch, ...contract } = definition;
  const shape = { ...own, ...pagingInput } as PagedShape<E>;
  return portTool<PagedInput<E>, PagedResult<T>>({
    ...contract,
    capability,
    input: z.strictObject(shape),
    result: pageSchema(item),
    run: async (input, port, context) => {
      const page = await fetch(port, input, context.signal);
      // The parsed input always holds the paging fields; TypeScript cannot see them through the generic shape.
      const { offset } = input as z.output<z.ZodObject<typeof pagingInput>>;
      return observe(context, input, { result: pageResult(page, offset), coverage: pageCoverage(page) });
    },
  });
}

/** The input shape of a one-procedure tool: `procedure` first, then its own properties. */
export type ProcedureShape<E extends z.ZodRawShape> = { procedure: typeof ProcedureSelectorSchema } & E;

/** The schema of a one-procedure tool's input. */
export type ProcedureInput<E extends z.ZodRawShape> = z.ZodObject<ProcedureShape<E>, z.core.$strict>;

/** What a {@link procedureTool} declares: the contract, and a body that starts from the resolved procedure. */
export interface ProcedureToolDefinition<R extends z.ZodType, E extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  /** The port capability the tool reads. */
  capability: NativeCapability;
  /** Input properties besides `procedure`, which precedes them. */
  input?: E;
  result: R;
  examples: ReadonlyArray<ToolExample<z.input<ProcedureInput<NoInfer<E>>>>>;
  /** The body, given the resolved procedure as `info`; the record's location is that procedure's entry. */
  run: (call: ProcedureCall<NoInfer<E>>) => Promise<Omit<NativeOutcome<z.input<NoInfer<R>>>, 'locations'>>;
}

/** What the body of a {@link procedureTool} receives. */
export interface ProcedureCall<E extends z.ZodRawShape> {
  /** The procedure the `procedure` selector names. */
  info: ProcedureInfo;
  /** The parsed input. */
  input: z.output<ProcedureInput<E>>;
  /** The bound port, known to declare the tool's capability. */
  port: NativePort;
  /** The call's context (its `signal` for the port reads). */
  context: ToolContext;
}

/**
 * Declares a capability-gated native tool about one procedure: input `{ procedure, ...input }`, the
 * selector resolved by entry address or exact name (`not_found` when neither matches) before `run`,
 * and the outcome recorded at the procedure's entry address.
 */
export function procedureTool<R extends z.ZodType, E extends z.ZodRawShape = Record<never, never>>(
  definition: ProcedureToolDefinition<R, E>,
): ToolContract<ProcedureInput<E>, R> {
  const { input: own, run, ...contract } = definition;
  const shape = { procedure: ProcedureSelectorSchema, ...own } as ProcedureShape<E>;
  return portTool<ProcedureInput<E>, R>({
    ...contract,
    input: z.strictObject(shape),
    run: async (input, port, context) => {
      // The parsed input always holds `procedure`; TypeScript cannot see it through the generic shape.
      const { procedure } = input as { procedure: string };
      const info = await resolveProcedure(port, procedure, context.signal);
      const outcome = await run({ info, input, port, context });
      return observe(context, input, { ...outcome, locations: [at(info.address)] });
    },
  });
}

/** The schema of a one-address tool's input: `{ address }`. */
export type AddressInput = z.ZodObject<{ address: typeof AddressSchema }, z.core.$strict>;

/** What an {@link addressTool} declares: the contract, and a body that starts from the checked address. */
export interface AddressToolDefinition<R extends z.ZodType> extends Omit<
  PortToolDefinition<AddressInput, R>,
  'input' | 'run'
> {
  /** The body, given the checked address; the record's location is that address. */
  run: (call: AddressCall) => Promise<Omit<NativeOutcome<z.input<NoInfer<R>>>, 'locations'>>;
}

/** What the body of an {@link addressTool} receives. */
export interface AddressCall {
  /** The `address` argument, checked to be a canonical address. */
  address: string;
  /** The bound port, known to declare the tool's capability. */
  port: NativePort;
  /** The call's context (its `signal` for the port reads). */
  context: ToolContext;
}

/**
 * Declares a capability-gated native tool about one address: input `{ address }`, checked
 * (`invalid_request` when malformed) before `run`, and the outcome recorded at that address.
 */
export function addressTool<R extends z.ZodType>(definition: AddressToolDefinition<R>): ToolContract<AddressInput, R> {
  const { run, ...contract } = definition;
  return portTool<AddressInput, R>({
    ...contract,
    input: z.strictObject({ address: AddressSchema }),
    run: async (input, port, context) => {
      const address = checkedAddress(input.address);
      const outcome = await run({ address, port, context });
      return observe(context, input, { ...outcome, locations: [at(address)] });
    },
  });
}
