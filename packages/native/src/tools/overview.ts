import { setImmediate as nextTurn } from 'node:timers/promises';
import { throwIfAborted } from '@rea/evidence';
import type { Limitation } from '@rea/evidence';
import { DocumentSchema, ProcedureSummarySchema, SegmentSchema } from '../schemas.js';
import type { NativePort, NativeSegment, ProcedureSummary } from '../port.js';
import { observe, z } from './common.js';
import { pagedPortTool, portTool } from './portTool.js';

const OverviewSchema = z.strictObject({
  document: DocumentSchema,
  procedure_count: z.number().int().nonnegative().nullable(),
  import_count: z.number().int().nonnegative().nullable(),
  string_count: z.number().int().nonnegative().nullable(),
  name_count: z.number().int().nonnegative().nullable(),
  segments: z.array(SegmentSchema).nullable(),
  entry_procedure: ProcedureSummarySchema.nullable(),
  first_procedures: z.array(ProcedureSummarySchema),
});

/** Procedures requested at a time while imports are counted: each page is a short stretch of work. */
const COUNT_PAGE = 2048;

/**
 * The number of import procedures (for a port without `importCount`), counted page by page with a
 * turn of the event loop between pages: a program of hundreds of thousands of procedures is never
 * listed at once, and other requests (and a cancel) are served meanwhile.
 */
async function countImports(port: NativePort, signal: AbortSignal): Promise<number> {
  let count = 0;
  let offset: number | null = 0;
  while (offset !== null) {
    const page = await port.procedures({ offset, limit: COUNT_PAGE }, signal);
    for (const p of page.items) if (p.kind === 'import') count += 1;
    // A page that does not advance would never end the count.
    offset = page.items.length > 0 && page.next_offset !== null && page.next_offset > offset ? page.next_offset : null;
    if (offset !== null) {
      await nextTurn();
      throwIfAborted(signal, 'overview');
    }
  }
  return count;
}

/** binary_overview: document facts, counts, segments and the first procedures of the bound target. */
export const binaryOverview = portTool({
  name: 'binary_overview',
  title: 'Binary overview',
  description:
    'Summarises the open native binary as the analysis engine sees it: format, architecture, entry point, segment map, and counts of procedures, imports, strings and names, with the first procedures. Start here after open_binary.',
  input: z.strictObject({
    sample: z.number().int().min(0).max(200).default(20).describe('How many procedures to list (0–200, default 20).'),
  }),
  result: OverviewSchema,
  examples: [{ input: {} }, { input: { sample: 50 } }],
  capability: 'documents',
  run: async (input, port, context) => {
    const { signal } = context;
    const limitations: Limitation[] = [];
    const document = await port.document(signal);
    let procedureCount: number | null = null;
    let importCount: number | null = null;
    let first: ProcedureSummary[] = [];
    let entry: ProcedureSummary | null = null;
    if (port.capabilities.has('procedures')) {
      const page = await port.procedures({ offset: 0, limit: input.sample }, signal);
      procedureCount = page.total;
      first = page.items;
      // A port that reads the imports from the file also counts those no procedure stands for.
      importCount = port.importCount ? await port.importCount(signal) : await countImports(port, signal);
      if (document.entry !== null) entry = await port.containingProcedure(document.entry, signal);
    } else {
      limitations.push({ kind: 'capability-unavailable', message: 'The provider does not list procedures.' });
    }
    throwIfAborted(signal, 'overview');
    let segments: NativeSegment[] | null = null;
    if (port.capabilities.has('segments')) segments = await port.segments(signal);
    else limitations.push({ kind: 'capability-unavailable', message: 'The provider does not list segments.' });
    const stringCount = port.capabilities.has('strings')
      ? (await port.strings({ offset: 0, limit: 0 }, signal)).total
      : null;
    const nameCount = port.capabilities.has('names') ? (await port.names({ offset: 0, limit: 0 }, signal)).total : null;
    return observe(context, input, {
      result: {
        document,
        procedure_count: procedureCount,
        import_count: importCount,
        string_count: stringCount,
        name_count: nameCount,
        segments,
        entry_procedure: entry,
        first_procedures: first,
      },
      limitations,
      coverage: limitations.length
        ? { status: 'partial', reasons: limitations.map((l) => l.message) }
        : { status: 'complete', reasons: [] },
    });
  },
});

/** list_segments: the mapped segments and sections with their permissions. */
export const listSegments = pagedPortTool({
  name: 'list_segments',
  title: 'List segments',
  description:
    'Lists the memory segments and sections of the open native binary with address ranges, file offsets and read/write/execute permissions. Use it to see where code and data live.',
  capability: 'segments',
  item: SegmentSchema,
  examples: [{ input: {} }, { input: { offset: 0, limit: 10 } }],
  fetch: async (port, { offset, limit }, signal) => {
    const all = await port.segments(signal);
    const items = all.slice(offset, offset + limit);
    const end = offset + items.length;
    return { items, total: all.length, next_offset: end < all.length ? end : null };
  },
});
