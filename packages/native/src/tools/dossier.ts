import { throwIfAborted } from '@rea/evidence';
import type { Limitation } from '@rea/evidence';
import { AddressSchema } from '../address.js';
import {
  BasicBlockSchema,
  CallSiteSchema,
  FlowEdgeSchema,
  HighPcodeOpSchema,
  InstructionSchema,
  ProcedureInfoSchema,
  ReferenceSchema,
  UnresolvedSchema,
} from '../schemas.js';
import type {
  CallSite,
  ControlFlow,
  NativeCapability,
  NativePort,
  NativeReference,
  UnresolvedTransfer,
} from '../port.js';
import { procedureStartingAt, z } from './common.js';
import { procedureTool } from './portTool.js';
import { ASSEMBLY_LIMIT } from './code.js';
import { unresolvedLimitations } from './relations.js';

const ReferencedStringSchema = z.strictObject({ address: AddressSchema, value: z.string(), site: AddressSchema });
const ReferencedNameSchema = z.strictObject({ address: AddressSchema, name: z.string(), site: AddressSchema });
const ApiCallSchema = z.strictObject({ name: z.string(), address: AddressSchema, sites: z.array(AddressSchema) });

/**
 * True when a call reaches an import: the engine says so, or it calls an import stub, or a thunk that
 * jumps to a function of a library (a PE's `jmp [__imp_x]`; Ghidra's thunk of an external function).
 * A thunk of a function of the binary itself is not an import.
 */
async function callsImport(port: NativePort, call: CallSite, signal: AbortSignal): Promise<boolean> {
  if (call.kind === 'import-call') return true;
  const summary = await procedureStartingAt(port, call.procedure, signal);
  if (summary?.kind === 'import') return true;
  if (summary?.kind !== 'thunk') return false;
  return ((await port.procedure(call.procedure, signal))?.library ?? null) !== null;
}

/** Schema of the analyze_function result (the function dossier). Null facets are listed in `unavailable`. */
export const FunctionDossierSchema = z.strictObject({
  procedure: ProcedureInfoSchema,
  assembly: z
    .strictObject({ instructions: z.array(InstructionSchema), total: z.number().int().nonnegative() })
    .nullable(),
  basic_blocks: z.array(BasicBlockSchema).nullable(),
  edges: z.array(FlowEdgeSchema).nullable(),
  callers: z.array(CallSiteSchema).nullable(),
  callees: z.array(CallSiteSchema).nullable(),
  unresolved_calls: z.array(UnresolvedSchema).nullable(),
  references: z.array(ReferenceSchema).nullable(),
  strings: z.array(ReferencedStringSchema).nullable(),
  names: z.array(ReferencedNameSchema).nullable(),
  api: z.strictObject({ imports: z.array(ApiCallSchema) }).nullable(),
  pseudocode: z.string().nullable().describe('Decompiled source text; null when the provider does not decompile.'),
  pseudocode_language: z.string().nullable(),
  high_pcode: z
    .strictObject({ ops: z.array(HighPcodeOpSchema), total: z.number().int().nonnegative() })
    .nullable()
    .describe('Decompiler high p-code ops; varnodes as space:0xoffset:size.'),
  comments: z
    .array(
      z.strictObject({ address: AddressSchema, comment: z.string().nullable(), inline_comment: z.string().nullable() }),
    )
    .nullable(),
  unavailable: z.array(z.string()).describe('Facets the bound provider cannot supply.'),
});

/** The analyze_function result. */
export type FunctionDossier = z.infer<typeof FunctionDossierSchema>;

function missing(capability: NativeCapability, facet: string): Limitation {
  return {
    kind: 'capability-unavailable',
    message: `The provider does not supply ${facet} (${capability}).`,
    scope: facet,
  };
}

/** The most high p-code ops a dossier carries; a longer function is marked truncated. */
export const HIGH_PCODE_LIMIT = 4096;

/** analyze_function: everything the engine knows about one function, in one record. */
export const analyzeFunction = procedureTool({
  name: 'analyze_function',
  title: 'Analyze function',
  description:
    'Builds the function dossier for one procedure: info, assembly, basic blocks and edges, callers and callees, unresolved indirect calls, references, referenced strings and names, imported APIs called, and pseudocode and high p-code when the provider decompiles. Pass the result to compare_functions.',
  result: FunctionDossierSchema,
  examples: [{ input: { procedure: 'main' } }],
  capability: 'procedures',
  run: async ({ info, port, context }) => {
    const { signal } = context;
    const has = (c: NativeCapability) => port.capabilities.has(c);
    const limitations: Limitation[] = [];
    const unavailable: string[] = [];
    const lack = (c: NativeCapability, facet: string) => {
      unavailable.push(facet);
      limitations.push(missing(c, facet));
    };
    let assembly: FunctionDossier['assembly'] = null;
    if (has('instructions')) {
      const page = await port.instructions(info.address, { offset: 0, limit: ASSEMBLY_LIMIT }, signal);
      assembly = { instructions: page.items, total: page.total };
      if (page.next_offset !== null)
        limitations.push({
          kind: 'truncated',
          message: `Assembly holds the first ${ASSEMBLY_LIMIT} of ${page.total} instructions; page the rest with read_function_instructions.`,
          scope: 'assembly',
        });
    } else lack('instructions', 'assembly');
    throwIfAborted(signal, 'assembly');
    let flow: ControlFlow | null = null;
    if (has('basic_blocks')) flow = await port.controlFlow(info.address, signal);
    else lack('basic_blocks', 'basic_blocks');
    let callers: CallSite[] | null = null;
    let callees: CallSite[] | null = null;
    let unresolved: UnresolvedTransfer[] | null = null;
    if (has('callers_callees')) {
      callers = await port.callers(info.address, signal);
      const c = await port.callees(info.address, signal);
      callees = c.calls;
      unresolved = c.unresolved;
      limitations.push(...unresolvedLimitations(c.unresolved));
    } else lack('callers_callees', 'callers_callees');
    throwIfAborted(signal, 'relations');
    let references: NativeReference[] | null = null;
    let strings: FunctionDossier['strings'] = null;
    let names: FunctionDossier['names'] = null;
    if (has('references')) {
      references = await port.procedureReferences(info.address, signal);
      if (has('strings')) {
        strings = [];
        for (const ref of references.filter((r) => r.kind === 'data')) {
          const s = await port.stringAt(ref.to, signal);
          if (s) strings.push({ address: s.address, value: s.value, site: ref.from });
        }
      } else lack('strings', 'strings');
      if (has('names')) {
        names = [];
        for (const ref of references) {
          const name = await port.nameAt(ref.to, signal);
          if (name !== null) names.push({ address: ref.to, name, site: ref.from });
        }
      } else lack('names', 'names');
    } else lack('references', 'references');
    let api: FunctionDossier['api'] = null;
    if (callees) {
      const byName = new Map<string, { name: string; address: string; sites: string[] }>();
      for (const call of callees) {
        if (!(await callsImport(port, call, signal))) continue;
        const name = call.name ?? call.procedure;
        const entry = byName.get(name) ?? { name, address: call.procedure, sites: [] };
        entry.sites.push(call.site);
        byName.set(name, entry);
      }
      api = { imports: [...byName.values()] };
    }
    let pseudocode: { language: string; text: string } | null = null;
    if (has('pseudocode') && port.pseudocode) pseudocode = await port.pseudocode(info.address, signal);
    else lack('pseudocode', 'pseudocode');
    let highPcode: FunctionDossier['high_pcode'] = null;
    if (has('high_pcode') && port.highPcode) {
      const page = await port.highPcode(info.address, { offset: 0, limit: HIGH_PCODE_LIMIT }, signal);
      highPcode = { ops: page.items, total: page.total };
      if (page.next_offset !== null)
        limitations.push({
          kind: 'truncated',
          message: `High p-code holds the first ${HIGH_PCODE_LIMIT} of ${page.total} ops.`,
          scope: 'high_pcode',
        });
    } else lack('high_pcode', 'high_pcode');
    throwIfAborted(signal, 'decompiler');
    let comments: FunctionDossier['comments'] = null;
    if (has('comments') && port.comments && assembly) {
      comments = [];
      for (const row of assembly.instructions) {
        const c = await port.comments(row.address, signal);
        if (c.comment !== null || c.inline_comment !== null) comments.push({ address: row.address, ...c });
      }
    } else lack('comments', 'comments');
    return {
      result: {
        procedure: info,
        assembly,
        basic_blocks: flow?.blocks ?? null,
        edges: flow?.edges ?? null,
        callers,
        callees,
        unresolved_calls: unresolved,
        references,
        strings,
        names,
        api,
        pseudocode: pseudocode?.text ?? null,
        pseudocode_language: pseudocode?.language ?? null,
        high_pcode: highPcode,
        comments,
        unavailable,
      },
      limitations,
      coverage: limitations.length
        ? { status: 'partial', reasons: [...new Set(limitations.map((l) => l.kind))] }
        : { status: 'complete', reasons: [] },
    };
  },
});

/**
 * The native views of an analyze_function record: each facet and the dot path of its collection or
 * text in `normalized_result`, for `inspect_analysis_view` (`view: "page"`, `collection: <path>`).
 * `pseudocode` pages by UTF-16 code units; the others page by rows.
 */
export const NATIVE_VIEW_FACETS = {
  procedure: 'procedure',
  pseudocode: 'pseudocode',
  high_pcode: 'high_pcode.ops',
  assembly: 'assembly.instructions',
  basic_blocks: 'basic_blocks',
  edges: 'edges',
  comments: 'comments',
  callers: 'callers',
  callees: 'callees',
  references: 'references',
  unresolved_calls: 'unresolved_calls',
  strings: 'strings',
  names: 'names',
  api: 'api.imports',
} as const;
