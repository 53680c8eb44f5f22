import { ReaError } from '@rea/evidence';
import { AddressSchema } from '../address.js';
import { ProcedureInfoSchema, ProcedureSummarySchema } from '../schemas.js';
import { at, observe, procedureStartingAt, z } from './common.js';
import { addressTool, pagedPortTool, portTool, procedureTool } from './portTool.js';

/** list_procedures: every procedure, in address order, offset-paginated. */
export const listProcedures = pagedPortTool({
  name: 'list_procedures',
  title: 'List procedures',
  description:
    'Lists the procedures (functions and import stubs) the engine found in the open native binary, in address order, a page at a time. Returns address, name, size, kind and how each was found; follow next_offset for more.',
  capability: 'procedures',
  item: ProcedureSummarySchema,
  examples: [{ input: {} }, { input: { offset: 100, limit: 50 } }],
  fetch: (port, input, signal) => port.procedures({ offset: input.offset, limit: input.limit }, signal),
});

/** search_procedures: procedures whose name contains a substring. */
export const searchProcedures = pagedPortTool({
  name: 'search_procedures',
  title: 'Search procedures',
  description:
    'Finds procedures whose name contains the query (case-insensitive), in address order, a page at a time. Use it to locate a function by part of its name.',
  capability: 'procedures',
  item: ProcedureSummarySchema,
  input: { query: z.string().min(1).describe('Substring to look for in procedure names (case-insensitive).') },
  examples: [{ input: { query: 'main' } }, { input: { query: 'crypt', limit: 20 } }],
  fetch: (port, input, signal) => port.procedures(input, signal),
});

/** procedure_address: the entry address of a named procedure. */
export const procedureAddress = portTool({
  name: 'procedure_address',
  title: 'Procedure address',
  description:
    'Returns the entry address of the procedure with exactly this name. Fails with not_found when no procedure has that name; use search_procedures for partial names.',
  input: z.strictObject({ name: z.string().min(1).describe('Exact procedure name, e.g. "main".') }),
  result: z.strictObject({ name: z.string(), address: AddressSchema }),
  examples: [{ input: { name: 'main' } }],
  capability: 'procedures',
  run: async (input, port, context) => {
    const address = await port.addressOf(input.name, context.signal);
    // Only the address is answered: the procedure table says whether one starts there.
    const info = address === null ? null : await procedureStartingAt(port, address, context.signal);
    if (info === null) {
      throw new ReaError('not_found', `No procedure is named ${input.name}.`, {
        remediation: 'Use search_procedures to find procedures by part of their name.',
        details: { name: input.name },
      });
    }
    return observe(context, input, {
      result: { name: input.name, address: info.address },
      locations: [at(info.address)],
    });
  },
});

/** resolve_containing_procedure: the procedure whose extent contains an address. */
export const resolveContainingProcedure = addressTool({
  name: 'resolve_containing_procedure',
  title: 'Resolve containing procedure',
  description:
    'Returns the procedure whose body contains the given address, or procedure: null when the address lies outside every known procedure. Use it to map a crash address or reference site to its function.',
  result: z.strictObject({ address: AddressSchema, procedure: ProcedureSummarySchema.nullable() }),
  examples: [{ input: { address: '0x401136' } }],
  capability: 'procedures',
  run: async ({ address, port, context }) => {
    const procedure = await port.containingProcedure(address, context.signal);
    return { result: { address, procedure } };
  },
});

/** procedure_info: one procedure's extent and counts. */
export const procedureInfo = procedureTool({
  name: 'procedure_info',
  title: 'Procedure info',
  description:
    'Describes one procedure: entry and end address, size, instruction and basic-block counts, caller and callee counts, kind and how it was found. Accepts an entry address or exact name.',
  result: ProcedureInfoSchema,
  examples: [{ input: { procedure: 'main' } }, { input: { procedure: '0x401126' } }],
  capability: 'procedures',
  run: async ({ info }) => ({ result: info }),
});
