import { ReaError } from '@rea/evidence';
import { AddressSchema } from '../address.js';
import { DocumentSchema, ProcedureSummarySchema } from '../schemas.js';
import { READ_EFFECTS, at, checkedAddress, defineTool, nativeBase, observe, portOf, z } from './common.js';
import { addressTool, portTool } from './portTool.js';

/** current_document: the document the session has selected. */
export const currentDocument = portTool({
  name: 'current_document',
  title: 'Current document',
  description:
    'Returns the document (binary) currently selected in the analysis session, with its format, architecture and entry point.',
  input: z.strictObject({}),
  result: z.strictObject({ document: DocumentSchema }),
  examples: [{ input: {} }],
  capability: 'documents',
  run: async (input, port, context) => {
    return observe(context, input, { result: { document: await port.document(context.signal) } });
  },
});

/** current_address: the navigation cursor. */
export const currentAddress = portTool({
  name: 'current_address',
  title: 'Current address',
  description: "Returns the session's current cursor address (null when none is set). Move it with goto_address.",
  input: z.strictObject({}),
  result: z.strictObject({ address: AddressSchema.nullable() }),
  examples: [{ input: {} }],
  capability: 'navigation',
  run: async (input, port, context) => {
    return observe(context, input, { result: { address: port.navigation!.current().address } });
  },
});

/** current_procedure: the procedure containing the cursor. */
export const currentProcedure = portTool({
  name: 'current_procedure',
  title: 'Current procedure',
  description:
    "Returns the procedure containing the session's cursor, or procedure: null when the cursor is outside every procedure or unset.",
  input: z.strictObject({}),
  result: z.strictObject({ address: AddressSchema.nullable(), procedure: ProcedureSummarySchema.nullable() }),
  examples: [{ input: {} }],
  capability: 'navigation',
  run: async (input, port, context) => {
    const { address } = port.navigation!.current();
    const procedure = address === null ? null : await port.containingProcedure(address, context.signal);
    return observe(context, input, { result: { address, procedure } });
  },
});

/** goto_address: moves the session cursor to a mapped address. */
export const gotoAddress = addressTool({
  effects: { ...READ_EFFECTS, idempotent: true },
  name: 'goto_address',
  title: 'Go to address',
  description:
    "Moves the session's cursor to a mapped address and returns the new position with its containing procedure. An unmapped address is not_found and leaves the cursor unchanged.",
  result: z.strictObject({ address: AddressSchema, procedure: ProcedureSummarySchema.nullable() }),
  examples: [{ input: { address: '0x401126' } }],
  capability: 'navigation',
  run: async ({ address, port, context }) => {
    const nav = port.navigation!;
    if (!(await port.isMapped(address, context.signal))) {
      throw new ReaError('not_found', `Address ${address} is not mapped in the open binary.`, {
        remediation: 'Pick an address inside a segment (see list_segments).',
        details: { address },
      });
    }
    nav.goto(address);
    const procedure = await port.containingProcedure(address, context.signal);
    return { result: { address, procedure } };
  },
});

/** get_navigation_context: document, cursor and containing procedure together. */
export const getNavigationContext = portTool({
  name: 'get_navigation_context',
  title: 'Get navigation context',
  description:
    'Composes the selected document, current address and current (containing) procedure in one result. Mode current_selection uses the session cursor; explicit_document applies when you pass document. A cursor outside a procedure gives procedure: null.',
  input: z.strictObject({
    document: z.string().min(1).optional().describe('Document name to describe explicitly (explicit_document mode).'),
  }),
  result: z.strictObject({
    mode: z.enum(['current_selection', 'explicit_document']),
    document: DocumentSchema,
    address: AddressSchema.nullable(),
    procedure: ProcedureSummarySchema.nullable(),
    capabilities: z.strictObject({ current_selection: z.boolean(), explicit_document: z.boolean() }),
  }),
  examples: [{ input: {} }],
  capability: 'documents',
  run: async (input, port, context) => {
    const document = await port.document(context.signal);
    if (input.document !== undefined && input.document !== document.name) {
      throw new ReaError('not_found', `No document named ${input.document} is open.`, {
        remediation: `The open document is ${document.name}: name it, or leave document out.`,
        details: { document: input.document, open: document.name },
      });
    }
    const hasNav = port.capabilities.has('navigation') && port.navigation !== undefined;
    const address = hasNav ? port.navigation!.current().address : null;
    const procedure = address === null ? null : await port.containingProcedure(address, context.signal);
    return observe(context, input, {
      result: {
        mode: input.document === undefined ? ('current_selection' as const) : ('explicit_document' as const),
        document,
        address,
        procedure,
        capabilities: { current_selection: hasNav, explicit_document: true },
      },
      limitations: hasNav ? [] : [{ kind: 'capability-unavailable', message: 'The provider keeps no cursor.' }],
    });
  },
});

const FacetSchema = z.union([
  z.strictObject({ status: z.literal('ok'), value: z.unknown() }),
  z.strictObject({ status: z.literal('unavailable'), reason: z.string() }),
]);

/** inspect_address_context: name, procedure, comment, inline comment and bookmark facets of an address. */
export const inspectAddressContext = defineTool({
  ...nativeBase,
  name: 'inspect_address_context',
  title: 'Inspect address context',
  description:
    'Returns the context of one explicit address as facets: name, containing procedure, comment, inline comment and bookmarks. A facet the provider does not support is an unavailable outcome on that facet, not a failure.',
  input: z.strictObject({ address: AddressSchema }),
  result: z.strictObject({
    address: AddressSchema,
    name: FacetSchema,
    procedure: FacetSchema,
    comment: FacetSchema,
    inline_comment: FacetSchema,
    bookmark: FacetSchema,
  }),
  examples: [{ input: { address: '0x401126' } }],
  run: async (input, context) => {
    const port = portOf(context);
    const address = checkedAddress(input.address);
    await port.prepare?.(context);
    const { signal } = context;
    const no = (what: string) => ({ status: 'unavailable' as const, reason: `The provider does not supply ${what}.` });
    const name = port.capabilities.has('names')
      ? { status: 'ok' as const, value: await port.nameAt(address, signal) }
      : no('names');
    const procedure = port.capabilities.has('procedures')
      ? { status: 'ok' as const, value: await port.containingProcedure(address, signal) }
      : no('procedures');
    const comments = port.capabilities.has('comments') && port.comments ? await port.comments(address, signal) : null;
    const bookmarks =
      port.capabilities.has('bookmarks') && port.bookmarks ? await port.bookmarks(address, signal) : null;
    const facets = {
      address,
      name,
      procedure,
      comment: comments ? { status: 'ok' as const, value: comments.comment } : no('comments'),
      inline_comment: comments ? { status: 'ok' as const, value: comments.inline_comment } : no('inline comments'),
      bookmark: bookmarks ? { status: 'ok' as const, value: bookmarks } : no('bookmarks'),
    };
    const unavailable = Object.entries(facets).filter(([, f]) => typeof f === 'object' && f.status === 'unavailable');
    return observe(context, input, {
      result: facets,
      limitations: unavailable.map(([k]) => ({
        kind: 'facet-unavailable',
        message: `The ${k} facet is unavailable from this provider.`,
        scope: k,
      })),
      locations: [at(address)],
    });
  },
});
