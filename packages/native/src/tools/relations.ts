import { ReaError } from '@rea/evidence';
import type { Limitation } from '@rea/evidence';
import { AddressSchema } from '../address.js';
import { CallSiteSchema, ReferenceSchema, UnresolvedSchema } from '../schemas.js';
import type { UnresolvedTransfer } from '../port.js';
import { z } from './common.js';
import { addressTool, procedureTool } from './portTool.js';

/** One limitation per unresolved transfer: the call list is then known to be incomplete. */
export function unresolvedLimitations(unresolved: readonly UnresolvedTransfer[]): Limitation[] {
  return unresolved.map((u) => ({
    kind: u.kind,
    message: `${u.kind === 'indirect-call' ? 'Indirect call' : 'Indirect jump'} at ${u.site} (${u.instruction}): target not resolved statically.`,
    scope: u.site,
  }));
}

/** procedure_callers: the call sites that reach a procedure. */
export const procedureCallers = procedureTool({
  name: 'procedure_callers',
  title: 'Procedure callers',
  description:
    'Lists the direct call sites that call a procedure (entry address or name), each with the calling procedure. Calls through pointers are not visible statically and are not listed.',
  result: z.strictObject({ procedure: AddressSchema, name: z.string(), callers: z.array(CallSiteSchema) }),
  examples: [{ input: { procedure: 'main' } }],
  capability: 'callers_callees',
  run: async ({ info, port, context }) => {
    const callers = await port.callers(info.address, context.signal);
    return {
      result: { procedure: info.address, name: info.name, callers },
      limitations: [
        {
          kind: 'indirect-callers',
          message: 'Callers that reach this procedure through pointers are not visible statically.',
          scope: info.address,
        },
      ],
    };
  },
});

/** procedure_callees: the calls a procedure makes, with unresolved ones as explicit unknowns. */
export const procedureCallees = procedureTool({
  name: 'procedure_callees',
  title: 'Procedure callees',
  description:
    'Lists the calls one procedure makes: resolved direct calls, calls to imports and tail calls, plus every indirect call or jump whose target is unknown (listed in unresolved and as limitations).',
  result: z.strictObject({
    procedure: AddressSchema,
    name: z.string(),
    callees: z.array(CallSiteSchema),
    unresolved: z.array(UnresolvedSchema),
  }),
  examples: [{ input: { procedure: 'main' } }],
  capability: 'callers_callees',
  run: async ({ info, port, context }) => {
    const callees = await port.callees(info.address, context.signal);
    const limitations = unresolvedLimitations(callees.unresolved);
    return {
      result: { procedure: info.address, name: info.name, callees: callees.calls, unresolved: callees.unresolved },
      limitations,
      coverage: limitations.length
        ? { status: 'partial', reasons: [`${limitations.length} indirect transfer(s) not resolved`] }
        : { status: 'complete', reasons: [] },
    };
  },
});

/** procedure_references: every reference made from a procedure, and every reference to its entry. */
export const procedureReferences = procedureTool({
  name: 'procedure_references',
  title: 'Procedure references',
  description:
    'Lists the references a procedure makes (calls, jumps, data and code-pointer references from its instructions) and the references to its entry. Use it to see what data a function touches.',
  result: z.strictObject({
    procedure: AddressSchema,
    name: z.string(),
    from_procedure: z.array(ReferenceSchema),
    to_procedure: z.array(ReferenceSchema),
  }),
  examples: [{ input: { procedure: 'main' } }],
  capability: 'references',
  run: async ({ info, port, context }) => {
    const from = await port.procedureReferences(info.address, context.signal);
    const to = (await port.references(info.address, context.signal)).to;
    return {
      result: { procedure: info.address, name: info.name, from_procedure: from, to_procedure: to },
    };
  },
});

/** xrefs: references to an address and from the instruction at it. */
export const xrefs = addressTool({
  name: 'xrefs',
  title: 'Cross-references',
  description:
    "Lists cross-references for one address: every reference to it (calls, jumps, data and code-pointer uses, each with its procedure, and the words of data that hold it, such as a function table's slots) and the references made by the instruction at it. An address outside the image that nothing refers to is not_found.",
  result: z.strictObject({ address: AddressSchema, to: z.array(ReferenceSchema), from: z.array(ReferenceSchema) }),
  examples: [{ input: { address: '0x402004' } }],
  capability: 'references',
  run: async ({ address, port, context }) => {
    const refs = await port.references(address, context.signal);
    // An address outside the image that nothing refers to is most likely a mistyped one: say so.
    if (refs.to.length === 0 && refs.from.length === 0 && !(await port.isMapped(address, context.signal))) {
      throw new ReaError(
        'not_found',
        `Address ${address} is not mapped in the open binary, and nothing refers to it.`,
        {
          remediation: 'Pick an address inside a segment (see list_segments).',
          details: { address, reason: 'unmapped' },
        },
      );
    }
    return { result: { address, ...refs } };
  },
});
