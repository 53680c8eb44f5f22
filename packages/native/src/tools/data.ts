import { AddressSchema } from '../address.js';
import { NameSchema, StringSchema, pageSchema, pagingInput } from '../schemas.js';
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
  z,
} from './common.js';

/** list_strings: strings found in the binary's data sections, offset-paginated. */
export const listStrings = defineTool({
  ...nativeBase,
  name: 'list_strings',
  title: 'List strings',
  description:
    'Lists the strings the engine found in the data sections of the open native binary (address, value, encoding, section), in address order, a page at a time.',
  input: z.strictObject({ ...pagingInput }),
  result: pageSchema(StringSchema),
  examples: [{ input: {} }, { input: { offset: 200, limit: 100 } }],
  run: async (input, context) => {
    const port = portOf(context);
    requireCapability(context, port, 'strings');
    const page = await port.strings({ offset: input.offset, limit: input.limit }, context.signal);
    return observe(context, input, { result: pageResult(page, input.offset), coverage: pageCoverage(page) });
  },
});

/** search_strings: strings containing a substring. */
export const searchStrings = defineTool({
  ...nativeBase,
  name: 'search_strings',
  title: 'Search strings',
  description:
    'Finds strings in the open native binary that contain the query (case-insensitive), a page at a time. Use xrefs on a result address to find the code that uses it.',
  input: z.strictObject({
    query: z.string().min(1).describe('Substring to look for (case-insensitive).'),
    ...pagingInput,
  }),
  result: pageSchema(StringSchema),
  examples: [{ input: { query: 'password' } }],
  run: async (input, context) => {
    const port = portOf(context);
    requireCapability(context, port, 'strings');
    const page = await port.strings(input, context.signal);
    return observe(context, input, { result: pageResult(page, input.offset), coverage: pageCoverage(page) });
  },
});

/** list_names: names (symbols, imports, exports, labels), optionally filtered. */
export const listNames = defineTool({
  ...nativeBase,
  name: 'list_names',
  title: 'List names',
  description:
    'Lists the names the engine knows (function and object symbols, imports, exports, labels) with their addresses, in address order, a page at a time; query filters by substring.',
  input: z.strictObject({
    query: z.string().min(1).optional().describe('Only names containing this substring (case-insensitive).'),
    ...pagingInput,
  }),
  result: pageSchema(NameSchema),
  examples: [{ input: {} }, { input: { query: 'init' } }],
  run: async (input, context) => {
    const port = portOf(context);
    requireCapability(context, port, 'names');
    const page = await port.names(
      input.query === undefined
        ? { offset: input.offset, limit: input.limit }
        : { offset: input.offset, limit: input.limit, query: input.query },
      context.signal,
    );
    return observe(context, input, { result: pageResult(page, input.offset), coverage: pageCoverage(page) });
  },
});

/** address_name: the name at an address, or null. */
export const addressName = defineTool({
  ...nativeBase,
  name: 'address_name',
  title: 'Address name',
  description: 'Returns the name (symbol, import, label) at exactly this address, or name: null when it has none.',
  input: z.strictObject({ address: AddressSchema }),
  result: z.strictObject({ address: AddressSchema, name: z.string().nullable() }),
  examples: [{ input: { address: '0x401126' } }],
  run: async (input, context) => {
    const port = portOf(context);
    requireCapability(context, port, 'names');
    const name = await port.nameAt(checkedAddress(input.address), context.signal);
    return observe(context, input, { result: { address: input.address, name }, locations: [at(input.address)] });
  },
});
