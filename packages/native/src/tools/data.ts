import { AddressSchema } from '../address.js';
import { NameSchema, StringSchema } from '../schemas.js';
import { z } from './common.js';
import { addressTool, pagedPortTool } from './portTool.js';

/** list_strings: strings found in the binary's data sections, offset-paginated. */
export const listStrings = pagedPortTool({
  name: 'list_strings',
  title: 'List strings',
  description:
    'Lists the strings the engine found in the data sections of the open native binary (address, value, encoding, section), in address order, a page at a time.',
  capability: 'strings',
  item: StringSchema,
  examples: [{ input: {} }, { input: { offset: 200, limit: 100 } }],
  fetch: (port, input, signal) => port.strings({ offset: input.offset, limit: input.limit }, signal),
});

/** search_strings: strings containing a substring. */
export const searchStrings = pagedPortTool({
  name: 'search_strings',
  title: 'Search strings',
  description:
    'Finds strings in the open native binary that contain the query (case-insensitive), a page at a time. Use xrefs on a result address to find the code that uses it.',
  capability: 'strings',
  item: StringSchema,
  input: { query: z.string().min(1).describe('Substring to look for (case-insensitive).') },
  examples: [{ input: { query: 'password' } }],
  fetch: (port, input, signal) => port.strings(input, signal),
});

/** list_names: names (symbols, imports, exports, labels), optionally filtered. */
export const listNames = pagedPortTool({
  name: 'list_names',
  title: 'List names',
  description:
    'Lists the names the engine knows (function and object symbols, imports, exports, labels) with their addresses, in address order, a page at a time; query filters by substring.',
  capability: 'names',
  item: NameSchema,
  input: { query: z.string().min(1).optional().describe('Only names containing this substring (case-insensitive).') },
  examples: [{ input: {} }, { input: { query: 'init' } }],
  fetch: (port, { offset, limit, query }, signal) =>
    port.names(query === undefined ? { offset, limit } : { offset, limit, query }, signal),
});

/** address_name: the name at an address, or null. */
export const addressName = addressTool({
  name: 'address_name',
  title: 'Address name',
  description: 'Returns the name (symbol, import, label) at exactly this address, or name: null when it has none.',
  result: z.strictObject({ address: AddressSchema, name: z.string().nullable() }),
  examples: [{ input: { address: '0x401126' } }],
  capability: 'names',
  run: async ({ address, port, context }) => {
    const name = await port.nameAt(address, context.signal);
    return { result: { address, name } };
  },
});
