import { isReaError, throwIfAborted } from '@rea/evidence';
import type { Limitation } from '@rea/evidence';
import { AddressSchema } from '../address.js';
import { LimitationSchemaLike, ProcedureSelectorSchema } from '../schemas.js';
import type { NativePort } from '../port.js';
import { at, observe, resolveProcedure, z } from './common.js';
import { portTool } from './portTool.js';

const NodeSchema = z.strictObject({
  address: AddressSchema,
  name: z.string(),
  depth: z.number().int().nonnegative(),
  expanded: z.boolean(),
  limitations: z.array(LimitationSchemaLike),
});
const EdgeSchema = z.strictObject({
  from: AddressSchema,
  to: AddressSchema,
  sites: z.array(AddressSchema),
  kind: z.string(),
});

interface Expansion {
  next: Array<{ address: string; name: string; site: string; kind: string }>;
  limitations: Limitation[];
}

/**
 * Expands one node. A provider-limited read (the engine refuses or times out on this node) becomes a
 * limitation on the node instead of failing the whole graph; cancellation still ends the request.
 */
async function expand(
  port: NativePort,
  address: string,
  direction: 'callees' | 'callers',
  signal: AbortSignal,
): Promise<Expansion> {
  try {
    return await expandOnce(port, address, direction, signal);
  } catch (error) {
    if (signal.aborted || !isReaError(error) || error.code === 'cancelled' || error.code === 'internal') throw error;
    return {
      next: [],
      limitations: [
        {
          kind: 'provider-limited',
          message: `The provider could not read the ${direction} of ${address} (${error.code}): ${error.message}`,
          scope: address,
        },
      ],
    };
  }
}

async function expandOnce(
  port: NativePort,
  address: string,
  direction: 'callees' | 'callers',
  signal: AbortSignal,
): Promise<Expansion> {
  if (direction === 'callers') {
    const callers = await port.callers(address, signal);
    const next = [];
    for (const c of callers)
      next.push({ address: c.procedure, name: c.name ?? c.procedure, site: c.site, kind: c.kind });
    return { next, limitations: [] };
  }
  const callees = await port.callees(address, signal);
  return {
    next: callees.calls.map((c) => ({ address: c.procedure, name: c.name ?? c.procedure, site: c.site, kind: c.kind })),
    limitations: callees.unresolved.map((u) => ({
      kind: u.kind,
      message: `Unresolved ${u.kind} at ${u.site} (${u.instruction}); the call list of this node is incomplete.`,
      scope: u.site,
    })),
  };
}

/** get_call_graph: the call graph around one procedure, depth-bounded, limitations kept on their node. */
export const getCallGraph = portTool({
  name: 'get_call_graph',
  title: 'Get call graph',
  description:
    'Builds the call graph from a root procedure to a bounded depth, following callees or callers. Each node carries its own limitations (unresolved indirect calls, depth or node budget reached): an empty call list with a limitation is incomplete, not proof of no calls.',
  input: z.strictObject({
    procedure: ProcedureSelectorSchema,
    direction: z
      .enum(['callees', 'callers'])
      .default('callees')
      .describe('Follow calls made (callees, default) or calls received (callers).'),
    depth: z.number().int().min(0).max(10).default(2).describe('Levels to expand from the root (0–10, default 2).'),
    max_nodes: z
      .number()
      .int()
      .min(1)
      .max(5000)
      .default(500)
      .describe('Stop adding nodes past this many (default 500).'),
  }),
  result: z.strictObject({
    root: AddressSchema,
    direction: z.string(),
    nodes: z.array(NodeSchema),
    edges: z.array(EdgeSchema),
    truncated: z.boolean(),
  }),
  examples: [{ input: { procedure: 'main' } }, { input: { procedure: 'main', direction: 'callers', depth: 3 } }],
  capability: 'callers_callees',
  run: async (input, port, context) => {
    const { signal } = context;
    const root = await resolveProcedure(port, input.procedure, signal);
    type Node = z.infer<typeof NodeSchema>;
    const nodes = new Map<string, Node>([
      [root.address, { address: root.address, name: root.name, depth: 0, expanded: false, limitations: [] }],
    ]);
    const edges = new Map<string, z.infer<typeof EdgeSchema>>();
    let frontier = [root.address];
    let truncated = false;
    for (let depth = 0; frontier.length > 0; depth += 1) {
      const next: string[] = [];
      for (const address of frontier) {
        throwIfAborted(signal, 'call-graph');
        const node = nodes.get(address)!;
        if (depth >= input.depth) {
          node.limitations.push({
            kind: 'depth-limit',
            message: `Not expanded: depth limit ${input.depth} reached.`,
            scope: address,
          });
          continue;
        }
        const { next: calls, limitations } = await expand(port, address, input.direction, signal);
        node.expanded = true;
        node.limitations.push(...limitations);
        for (const call of calls) {
          const [from, to] = input.direction === 'callees' ? [address, call.address] : [call.address, address];
          if (!nodes.has(call.address)) {
            if (nodes.size >= input.max_nodes) {
              truncated = true;
              node.limitations.push({
                kind: 'node-budget',
                message: `Call to ${call.address} omitted: node budget ${input.max_nodes} reached.`,
                scope: call.site,
              });
              continue;
            }
            nodes.set(call.address, {
              address: call.address,
              name: call.name,
              depth: depth + 1,
              expanded: false,
              limitations: [],
            });
            next.push(call.address);
          }
          const key = `${from}>${to}`;
          const edge = edges.get(key) ?? { from, to, sites: [], kind: call.kind };
          edge.sites.push(call.site);
          edges.set(key, edge);
        }
      }
      frontier = next;
    }
    const nodeList = [...nodes.values()];
    const limited = nodeList.filter((n) => n.limitations.length > 0);
    return observe(context, input, {
      result: {
        root: root.address,
        direction: input.direction,
        nodes: nodeList,
        edges: [...edges.values()],
        truncated,
      },
      limitations: limited.flatMap((n) => n.limitations).slice(0, 200),
      coverage: limited.length
        ? { status: 'partial', reasons: [`${limited.length} node(s) carry limitations`] }
        : { status: 'complete', reasons: [] },
      locations: [at(root.address)],
    });
  },
});

const ResidualSchema = z.strictObject({ node: AddressSchema, kind: z.string(), message: z.string() });

/** trace_call_path: call paths between two procedures, with every limited expansion reported. */
export const traceCallPath = portTool({
  name: 'trace_call_path',
  title: 'Trace call path',
  description:
    'Finds call paths from one procedure to another (following direct calls, shortest first). Every expansion the engine could not complete (indirect calls, depth or path budget) is listed in residual_unknowns and sets truncated: true; paths already found stay visible.',
  input: z.strictObject({
    from: ProcedureSelectorSchema.describe('Start procedure: entry address or exact name.'),
    to: ProcedureSelectorSchema.describe('Goal procedure: entry address or exact name.'),
    max_depth: z.number().int().min(1).max(16).default(8).describe('Longest path, in calls (default 8).'),
    max_paths: z.number().int().min(1).max(100).default(10).describe('Stop after this many paths (default 10).'),
  }),
  result: z.strictObject({
    from: AddressSchema,
    to: AddressSchema,
    paths: z.array(z.array(AddressSchema)),
    residual_unknowns: z.array(ResidualSchema),
    truncated: z.boolean(),
  }),
  examples: [{ input: { from: 'main', to: 'puts' } }],
  capability: 'callers_callees',
  run: async (input, port, context) => {
    const { signal } = context;
    const from = await resolveProcedure(port, input.from, signal);
    const to = await resolveProcedure(port, input.to, signal);
    const residual: Array<z.infer<typeof ResidualSchema>> = [];
    const paths: string[][] = [];
    const cache = new Map<string, Expansion>();
    const limitedNodes = new Set<string>();
    let queue: string[][] = [[from.address]];
    let budgetHit = false;
    for (let depth = 0; queue.length > 0 && paths.length < input.max_paths; depth += 1) {
      const next: string[][] = [];
      for (const path of queue) {
        throwIfAborted(signal, 'trace');
        const tail = path[path.length - 1]!;
        if (tail === to.address) {
          paths.push(path);
          if (paths.length >= input.max_paths) break;
          continue;
        }
        if (depth >= input.max_depth) {
          if (!limitedNodes.has(`depth:${tail}`)) {
            limitedNodes.add(`depth:${tail}`);
            residual.push({
              node: tail,
              kind: 'depth-limit',
              message: `Not expanded beyond depth ${input.max_depth}.`,
            });
          }
          continue;
        }
        let expansion = cache.get(tail);
        if (!expansion) {
          expansion = await expand(port, tail, 'callees', signal);
          cache.set(tail, expansion);
          for (const l of expansion.limitations) residual.push({ node: tail, kind: l.kind, message: l.message });
        }
        for (const call of expansion.next) {
          if (path.includes(call.address)) continue;
          if (next.length >= 20000) {
            budgetHit = true;
            continue;
          }
          next.push([...path, call.address]);
        }
      }
      queue = next;
    }
    if (budgetHit)
      residual.push({
        node: from.address,
        kind: 'search-budget',
        message: 'The path search frontier exceeded 20000 partial paths.',
      });
    if (paths.length >= input.max_paths && queue.length > 0)
      residual.push({ node: from.address, kind: 'path-budget', message: `Stopped after ${input.max_paths} paths.` });
    const truncated = residual.length > 0;
    return observe(context, input, {
      result: { from: from.address, to: to.address, paths, residual_unknowns: residual, truncated },
      limitations: residual.slice(0, 200).map((r) => ({ kind: r.kind, message: r.message, scope: r.node })),
      coverage: truncated
        ? { status: 'partial', reasons: ['some expansions were limited; see residual_unknowns'] }
        : { status: 'complete', reasons: [] },
      locations: [at(from.address), at(to.address)],
    });
  },
});
