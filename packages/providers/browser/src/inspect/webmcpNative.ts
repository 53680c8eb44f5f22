import type { CdpConnection, CdpParams } from '../engine/cdp.js';
import type { Steps } from './step.js';

/** A tool as the browser's own WebMCP surface reports it, with its frame resolved. */
export interface NativeTool {
  name: string;
  description: string;
  input_schema: unknown;
  source: 'imperative' | 'declarative';
  frame: string;
  origin: string;
}

interface Reported {
  name: string;
  description?: string;
  inputSchema?: unknown;
  frameId: string;
  backendNodeId?: number;
}

interface FrameNode {
  frame: { id: string; url: string; securityOrigin?: string };
  childFrames?: FrameNode[];
}

function frames(node: FrameNode | undefined, out = new Map<string, FrameNode['frame']>()): typeof out {
  if (!node) return out;
  out.set(node.frame.id, node.frame);
  for (const child of node.childFrames ?? []) frames(child, out);
  return out;
}

/** Whether the page has the browser's own `document.modelContext` (not a script's stand-in). */
const NATIVE_CHECK = `typeof ModelContext === 'function' && /\\[native code\\]/.test(Function.prototype.toString.call(ModelContext)) && document.modelContext instanceof ModelContext`;

/**
 * Reads the tools the browser itself knows through its DevTools `WebMCP` domain (Chromium with the
 * WebMCP feature): enabling it reports every tool registered so far, imperative (`registerTool`) or
 * declarative (`<form toolname>`, which carries a DOM node). `available` is false when the browser
 * has no such surface: the domain is missing or the page has no native `document.modelContext`.
 */
export async function readNativeWebmcp(
  page: CdpConnection,
  steps: Steps,
): Promise<{ available: boolean; tools: NativeTool[] }> {
  const reported = new Map<string, Reported>();
  const key = (t: { frameId: string; name: string }) => `${t.frameId}\0${t.name}`;
  page.on('WebMCP.toolsAdded', (p: CdpParams) => {
    for (const tool of (p['tools'] as Reported[]).slice(0, 500)) reported.set(key(tool), tool);
  });
  page.on('WebMCP.toolsRemoved', (p: CdpParams) => {
    for (const tool of p['tools'] as Reported[]) reported.delete(key(tool));
  });
  const read = await steps.run('browser-webmcp-unread', "the browser's WebMCP surface", async () => {
    const native = await page.send('Runtime.evaluate', { expression: NATIVE_CHECK, returnByValue: true, silent: true });
    if ((native['result'] as { value?: unknown }).value !== true) return { native: false, tree: null };
    // Enabling reports the registered tools as events, which arrive before the next answer.
    await page.send('WebMCP.enable');
    const tree = await page.send('Page.getResourceTree');
    await page.send('WebMCP.disable');
    return { native: true, tree };
  });
  if (read === null || !read.native) {
    if (read !== null)
      steps.limit(
        'browser-webmcp-unavailable',
        "The browser exposes no WebMCP surface of its own (no native document.modelContext; Chromium enables it with --enable-features=WebMCP): tools come from REA's instrumentation and form scan only.",
      );
    return { available: false, tools: [] };
  }
  const known = frames(read.tree?.['frameTree'] as FrameNode | undefined);
  return {
    available: true,
    tools: [...reported.values()].map((t) => {
      const frame = known.get(t.frameId);
      return {
        name: t.name,
        description: t.description ?? '',
        input_schema: t.inputSchema ?? null,
        source: t.backendNodeId === undefined ? ('imperative' as const) : ('declarative' as const),
        frame: frame?.url ?? '',
        origin: frame?.securityOrigin ?? '',
      };
    }),
  };
}
