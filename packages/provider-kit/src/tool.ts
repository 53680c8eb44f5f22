import type { z } from 'zod';
import { validateCooperatively } from './validateResult.js';
import {
  ReaError,
  canonicalJson,
  evidenceRecordSchemaFor,
  isReaError,
  normalizeError,
  sealEvidenceAsync,
  throwIfAborted,
} from '@rea/evidence';
import type { EvidenceRecord, UnsignedEvidence } from '@rea/evidence';
import { deriveAnnotations, validateEffects } from './effects.js';
import type { ToolAnnotations, ToolEffects } from './effects.js';
import type { AvailabilityContext, ClientFeature, ToolContext } from './context.js';

/** A tool is available, or unavailable with a reason and a remediation. */
export type Availability = { available: true } | { available: false; reason: string; remediation: string };

/** One example input. `advertised: false` keeps it for tests only (e.g. it embeds a complete record). */
export interface ToolExample<I> {
  input: I;
  description?: string;
  advertised?: boolean;
}

/**
 * An observation a tool returns; the runner adds `operation` (the tool name) and seals it. A tool that
 * answers `detail: "summary"` with the derived view of the complete record it retained names the
 * view's operation, `inspect_analysis_view`, so its answer is exactly that view's Evidence.
 */
export type Observation<R> = Omit<UnsignedEvidence<R>, 'operation'> & { operation?: 'inspect_analysis_view' };

interface ContractBase<I extends z.ZodType, R extends z.ZodType> {
  /** snake_case verb phrase: the MCP tool name; the CLI command is its kebab-case form. */
  name: string;
  title: string;
  /** For a model deciding whether to call it: what it does, when to use it, what it returns. */
  description: string;
  /** Canonical input schema: an object, or a union of objects. Every property has a description. */
  input: I;
  /** Schema of the result: the Evidence `normalized_result`, or the plain result. */
  result: R;
  examples: ReadonlyArray<ToolExample<z.input<I>>>;
  effects: ToolEffects;
  clientFeatures?: { required?: readonly ClientFeature[]; optional?: readonly ClientFeature[] };
  /** Whether the tool can run now. Cheap; never starts an engine. Defaults to available. */
  availability?: (context: AvailabilityContext) => Availability;
}

/** A tool whose success is one Evidence record. */
export interface EvidenceToolDefinition<I extends z.ZodType, R extends z.ZodType> extends ContractBase<I, R> {
  produces: 'evidence';
  run: (input: z.output<I>, context: ToolContext) => Promise<Observation<z.input<R>>>;
}

/** A tool whose success is a plain result (session and catalog tools). */
export interface ResultToolDefinition<I extends z.ZodType, R extends z.ZodType> extends ContractBase<I, R> {
  produces: 'result';
  run: (input: z.output<I>, context: ToolContext) => Promise<z.input<R>>;
}

/** A validated tool contract, as held by the catalog. */
export type ToolContract<I extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> = (
  EvidenceToolDefinition<I, R> | ResultToolDefinition<I, R>
) & {
  readonly annotations: ToolAnnotations;
  readonly clientFeatures: { required: readonly ClientFeature[]; optional: readonly ClientFeature[] };
  /** The schema of a successful result: the Evidence record, or the plain result. */
  readonly output: z.ZodType;
  readonly availability: (context: AvailabilityContext) => Availability;
};

/** Any tool contract (for catalogs and hosts). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyToolContract = ToolContract<any, any>;

const NAME = /^[a-z][a-z0-9_]{0,63}$/;

function refuse(name: string, problem: string): never {
  throw new ReaError('invalid_request', `Tool contract ${name} is invalid: ${problem}.`, {
    details: { reason: 'invalid-contract', tool: name, problem },
  });
}

function defOf(schema: z.ZodType): { type: string; [key: string]: unknown } {
  return (schema as unknown as { _zod: { def: { type: string } } })._zod.def;
}

/** The object schemas at the root of an input: the object itself, or each member of a root union. */
export function rootObjects(schema: z.ZodType): z.ZodObject[] | null {
  const def = defOf(schema);
  if (def.type === 'object') return [schema as z.ZodObject];
  if (def.type === 'union') {
    const options = (def as unknown as { options: z.ZodType[] }).options;
    const objects = options.map((option) => rootObjects(option));
    return objects.every((o) => o !== null) ? (objects as z.ZodObject[][]).flat() : null;
  }
  if (def.type === 'pipe') return rootObjects((def as unknown as { in: z.ZodType }).in);
  return null;
}

/**
 * Declares a tool. The only way to make one: checks the name, the effects (all nine, consistent), that
 * the input is an object (or a union of objects) whose every property is described, and that every
 * example is a distinct valid input. Derives the MCP annotations. Throws `invalid_request` otherwise.
 */
export function defineTool<I extends z.ZodType, R extends z.ZodType>(
  definition: EvidenceToolDefinition<I, R>,
): ToolContract<I, R>;
export function defineTool<I extends z.ZodType, R extends z.ZodType>(
  definition: ResultToolDefinition<I, R>,
): ToolContract<I, R>;
export function defineTool<I extends z.ZodType, R extends z.ZodType>(
  definition: EvidenceToolDefinition<I, R> | ResultToolDefinition<I, R>,
): ToolContract<I, R> {
  const { name } = definition;
  if (!NAME.test(name)) refuse(name, 'the name must be a snake_case verb phrase of at most 64 characters');
  if (!definition.title.trim()) refuse(name, 'the title is empty');
  if (definition.description.trim().length < 20)
    refuse(name, 'the description must say what the tool does, when to use it and what it returns');
  validateEffects(name, definition.effects);
  if (definition.produces === 'evidence' && !definition.effects.mutatesSession) {
    refuse(name, 'an Evidence-producing tool records into the session ledger, so it must declare mutatesSession');
  }
  const objects = rootObjects(definition.input);
  if (objects === null) refuse(name, 'the input must be an object schema or a union of object schemas');
  for (const object of objects) {
    for (const [key, property] of Object.entries(object.shape)) {
      if (!(property as z.ZodType).description) refuse(name, `input property "${key}" has no description`);
    }
  }
  if (definition.examples.length === 0) refuse(name, 'at least one example is required');
  const seen = new Set<string>();
  definition.examples.forEach((example, index) => {
    // Checked once per example when the tool is defined: zod's compiled fast path would cost more to
    // build (for every tool, in every process) than this one check saves.
    const parsed = definition.input.safeParse(example.input, { jitless: true });
    if (!parsed.success)
      refuse(name, `example ${index} is not a valid input: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    const key = canonicalJson(example.input);
    if (seen.has(key)) refuse(name, `example ${index} repeats an earlier example`);
    seen.add(key);
  });
  const required = [...(definition.clientFeatures?.required ?? [])].sort();
  const optional = [...(definition.clientFeatures?.optional ?? [])].sort();
  const output = definition.produces === 'evidence' ? evidenceRecordSchemaFor(definition.result) : definition.result;
  const contract = Object.freeze({
    ...definition,
    annotations: deriveAnnotations(definition.effects),
    clientFeatures: { required, optional },
    output,
    availability: definition.availability ?? ALWAYS_AVAILABLE,
  }) as ToolContract<I, R>;
  defined.add(contract);
  return contract;
}

/** The availability of a tool that declares none: available whatever the session. */
export const ALWAYS_AVAILABLE = (): Availability => ({ available: true });

/** The contracts {@link defineTool} made (frozen, their output derived from their result schema). */
const defined = new WeakSet<object>();

/**
 * True when {@link executeTool} has already held every outcome of `contract` to its advertised output
 * schema, so a host need not check it again: the contract was made by {@link defineTool}, whose output
 * schema is the result schema (or the Evidence record around it) that the execution validates the result
 * against, with the record's envelope validated when it is sealed. False for any other contract object.
 */
export function outputCheckedByExecution(contract: AnyToolContract): boolean {
  return defined.has(contract);
}

/** A successful tool execution. */
export type ToolOutcome = { kind: 'evidence'; record: EvidenceRecord } | { kind: 'result'; value: unknown };

/** A zod issue as far as it is read here: a union's carries the issues of each of its branches. */
interface UnionAwareIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  errors?: UnionAwareIssue[][];
}

/**
 * The issues of `issue` under `prefix`. A union that no branch accepts says only "Invalid input": its
 * place is taken by the issues of the branch that came closest (the fewest issues), which say what to
 * change.
 */
function flattened(issue: UnionAwareIssue, prefix: PropertyKey[]): Array<{ path: string; message: string }> {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'invalid_union' && issue.errors !== undefined && issue.errors.length > 0) {
    const closest = issue.errors.reduce((best, branch) => (branch.length < best.length ? branch : best));
    if (closest.length > 0) return closest.flatMap((inner) => flattened(inner, path));
  }
  return [{ path: path.map(String).join('.') || '(root)', message: issue.message }];
}

function issuesOf(error: z.ZodError): Array<{ path: string; message: string }> {
  return (error.issues as unknown as UnionAwareIssue[]).flatMap((issue) => flattened(issue, [])).slice(0, 50);
}

/** Turns zod issues into `invalid_request` details: `details.issues` lists `{ path, message }`. */
export function invalidInput(tool: string, error: z.ZodError): ReaError {
  const issues = issuesOf(error);
  const first = issues[0];
  return new ReaError(
    'invalid_request',
    `Invalid input for ${tool}${first ? `: ${first.path}: ${first.message}` : ''}.`,
    {
      operation: tool,
      details: { issues },
    },
  );
}

/**
 * Runs a tool: validates the input against the canonical schema, checks availability and required
 * client features, runs it, seals Evidence (adding `operation`), and validates the result against the
 * output schema (a violation is `internal`). Cancellation observed before completion is `cancelled`, so
 * nothing provisional escapes. Every failure is a ReaError attributed to the tool.
 *
 * The call's supervisor (`context.supervisor`, one per call, made by the host) is closed before this
 * settles — after success, failure, cancellation or a deadline — so no process, temp directory,
 * socket or mount the tool started outlives the call. On success a cleanup failure is the call's
 * failure (`cleanup_incomplete`); on failure it is added to the failure as `details.cleanup`.
 */
export async function executeTool(
  contract: AnyToolContract,
  rawInput: unknown,
  context: ToolContext,
): Promise<ToolOutcome> {
  let outcome: ToolOutcome;
  try {
    outcome = await runContract(contract, rawInput, context);
  } catch (error) {
    throw await closeAfterFailure(context, normalizeError(error, contract.name));
  }
  await context.supervisor.closeAll().catch((error: unknown) => {
    throw normalizeError(error, contract.name);
  });
  return outcome;
}

/**
 * Closes the call's supervisor after a failure. The failure stays what it was; owned resources that
 * remain are added as `details.cleanup` ({ status: "incomplete", remaining }), describing host state
 * separately from the failure.
 */
async function closeAfterFailure(context: ToolContext, failure: ReaError): Promise<ReaError> {
  try {
    await context.supervisor.closeAll();
    return failure;
  } catch (error) {
    const remaining = isReaError(error) ? (error.details['remaining'] ?? []) : [];
    return new ReaError(failure.code, failure.message, {
      ...(failure.operation === null ? {} : { operation: failure.operation }),
      retryable: failure.retryable,
      remediation: failure.remediation,
      details: { ...failure.details, cleanup: { status: 'incomplete', remaining } },
      cause: failure.cause,
    });
  }
}

async function runContract(contract: AnyToolContract, rawInput: unknown, context: ToolContext): Promise<ToolOutcome> {
  const operation = contract.name;
  try {
    const parsed = contract.input.safeParse(rawInput ?? {});
    if (!parsed.success) throw invalidInput(operation, parsed.error);
    const availability = contract.availability(context);
    if (!availability.available) {
      throw new ReaError('capability_unavailable', `${operation} is unavailable: ${availability.reason}`, {
        remediation: availability.remediation,
        details: { reason: availability.reason },
      });
    }
    const missing = contract.clientFeatures.required.filter((feature) => !context.clientFeatures.has(feature));
    if (missing.length > 0) {
      throw new ReaError(
        'capability_unavailable',
        `${operation} needs client features this client did not negotiate: ${missing.join(', ')}.`,
        {
          remediation: 'Use a client that supports the listed MCP features.',
          details: { capability: missing.join(','), missing_client_features: missing },
        },
      );
    }
    throwIfAborted(context.signal, 'start');
    if (contract.produces === 'evidence') {
      const observation = await contract.run(parsed.data, context);
      throwIfAborted(context.signal, 'sealing');
      // Long tables are validated a batch at a time: a large result must not hold the event loop.
      const issues = await validateCooperatively(contract.result, observation.normalized_result, context.signal);
      if (issues !== null) {
        throw new ReaError('internal', `${operation} produced a result that violates its own output schema.`, {
          details: { issues: issuesOf({ issues } as z.ZodError) },
        });
      }
      // Hashed a slice at a time: a large record must not hold the event loop while it is sealed. A value
      // JSON cannot hold (Infinity, a cycle) is the tool's fault, not the caller's input.
      const record = await sealEvidenceAsync(
        { ...observation, operation: observation.operation ?? operation },
        context.signal,
      ).catch((error: unknown) => {
        if (!isReaError(error) || error.details['reason'] !== 'not-json') throw error;
        throw new ReaError('internal', `${operation} produced a result that is not JSON: ${error.message}`, {
          details: {
            reason: 'not-json',
            path: error.details['path'] ?? null,
            problem: error.details['problem'] ?? null,
          },
        });
      });
      throwIfAborted(context.signal, 'publication');
      return { kind: 'evidence', record };
    }
    const value = await contract.run(parsed.data, context);
    throwIfAborted(context.signal, 'publication');
    const checked = contract.result.safeParse(value);
    if (!checked.success) {
      throw new ReaError('internal', `${operation} produced a result that violates its own output schema.`, {
        details: { issues: issuesOf(checked.error as z.ZodError) },
      });
    }
    return { kind: 'result', value: checked.data };
  } catch (error) {
    if (context.signal.aborted) {
      // Cancelled by the host with a reason of its own (a closed session, a shutdown): keep what it says,
      // also when the tool stopped with a `cancelled` of its own (it then says in which phase).
      const reason: unknown = context.signal.reason;
      const stopped = !isReaError(error) || error.code === 'internal' || error.code === 'cancelled';
      if (stopped && isReaError(reason) && reason.code === 'cancelled') {
        const phase = isReaError(error) && error.code === 'cancelled' ? error.details['phase'] : undefined;
        throw new ReaError('cancelled', `${operation} was cancelled: ${reason.message}`, {
          operation,
          details: { ...reason.details, ...(typeof phase === 'string' ? { phase } : {}) },
          remediation: reason.remediation,
        });
      }
      if (!isReaError(error) || error.code === 'internal') {
        throw new ReaError('cancelled', `${operation} was cancelled.`, { operation });
      }
    }
    throw normalizeError(error, operation);
  }
}

/** Sorts contracts by name and refuses duplicates: the catalog order every host uses. */
export function sortCatalog(contracts: readonly AnyToolContract[]): AnyToolContract[] {
  const sorted = [...contracts].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (let i = 1; i < sorted.length; i += 1) {
    if (sorted[i]!.name === sorted[i - 1]!.name) {
      throw new ReaError('invalid_request', `Two tools are named ${sorted[i]!.name}.`, {
        details: { reason: 'duplicate-tool', tool: sorted[i]!.name },
      });
    }
  }
  return sorted;
}
