import { createHash } from 'node:crypto';
import type { CdpConnection, CdpParams } from '../engine/cdp.js';
import type { TargetInfo } from '../browser.js';
import { originAllowed } from '../origins.js';
import { READS_IN_FLIGHT, inParallel } from './parallel.js';
import { pageFactsExpression } from './pageFacts.js';
import type { PageFacts } from './pageFacts.js';
import { RECORD_LIMITS } from './recorder.js';
import type { Recording } from './recorder.js';
import type { WebPageInspection } from './schema.js';
import type { Steps } from './step.js';

/** How much source text is read for hashing, and how many source maps are tried. */
export const SOURCE_BUDGET = Object.freeze({ bytes: 32 * 1024 * 1024, maps: 50 });

/** How many of the scripts left unhashed the limitation names (the rest are counted). */
const UNHASHED_NAMED = 10;

interface FrameNode {
  frame: { id: string; parentId?: string; url: string; securityOrigin?: string; mimeType?: string };
  childFrames?: FrameNode[];
  resources?: Array<{ url: string; type: string; mimeType: string; contentSize?: number }>;
}

function flatten(node: FrameNode | undefined, out: FrameNode[] = []): FrameNode[] {
  if (!node) return out;
  out.push(node);
  for (const child of node.childFrames ?? []) flatten(child, out);
  return out;
}

function resolveMap(script: CdpParams): string | null {
  const map = String(script['sourceMapURL'] ?? '');
  if (!map) return null;
  try {
    return new URL(map, String(script['url'])).href;
  } catch {
    return map;
  }
}

/** What the inspection reads from the page and the browser, bounded step by step. */
export interface CollectInput {
  page: CdpConnection;
  recording: Recording;
  steps: Steps;
  target: TargetInfo;
  endpoint: string;
  /** True when REA loaded the page itself and observed its requests from the start. */
  fresh: boolean;
  origins: readonly string[] | undefined;
  maxDomNodes: number;
  storageValues: boolean;
  workers: WebPageInspection['service_workers'];
  /** Every target of the browser (the out-of-process iframes of the page among them). */
  targets: readonly TargetInfo[];
}

/**
 * The page's frames that run in other renderer processes, as the browser lists them: iframe targets
 * embedded in one of the page's frames or, nested, in one of these.
 */
function outOfProcessFrames(frames: FrameNode[], targets: readonly TargetInfo[]): TargetInfo[] {
  const known = new Set(frames.map((f) => f.frame.id));
  const found: TargetInfo[] = [];
  for (let grew = true; grew;) {
    grew = false;
    for (const t of targets) {
      if (t.type !== 'iframe' || t.parentFrameId === undefined || known.has(t.targetId) || !known.has(t.parentFrameId))
        continue;
      known.add(t.targetId);
      found.push(t);
      grew = true;
    }
  }
  return found;
}

/** A URL's origin as the page's `location.origin` gives it ("null" when opaque); empty when no URL. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

/**
 * A frame's origin as its `location.origin` gives it: the browser writes an opaque origin (a data:
 * document, a sandboxed frame) as "://", which the page itself sees as "null".
 */
function frameOrigin(frame: FrameNode['frame']): string {
  const origin = frame.securityOrigin ?? originOf(frame.url);
  return origin === '://' ? 'null' : origin;
}

/**
 * The URLs of the page's documents: its frames' where the frame tree was read, else (the tree unread)
 * the page's own and every document the recorder saw requested, so an inline script is still told from
 * a file.
 */
function documentUrls(input: CollectInput, frames: FrameNode[] | null): Set<string> {
  if (frames !== null) return new Set(frames.map((f) => f.frame.url));
  const requested = [...input.recording.requests.values()].filter((r) => r.type === 'Document').map((r) => r.url);
  return new Set([input.target.url, ...requested]);
}

async function scripts(
  input: CollectInput,
  frames: FrameNode[] | null,
  parsed: CdpParams[],
): Promise<WebPageInspection['scripts']> {
  const { page, recording, steps } = input;
  const documents = documentUrls(input, frames);
  const listed = parsed.filter((s) => String(s['url'] ?? '') !== '' && originAllowed(String(s['url']), input.origins));
  const dynamic = parsed.length - parsed.filter((s) => String(s['url'] ?? '') !== '').length;
  if (dynamic > 0)
    steps.limit('dynamic-scripts', `${dynamic} scripts without a URL (eval, new Function, DevTools) are not listed.`);
  if (recording.scriptsDropped > 0)
    steps.limit(
      'budget-reached',
      `${recording.scriptsDropped} scripts past the first ${RECORD_LIMITS.scripts} are not listed.`,
      'scripts',
    );
  // Budgets are assigned in page order before any read, so the result does not depend on which read
  // answers first; the reads then run a few at a time.
  let budget = SOURCE_BUDGET.bytes;
  let maps = SOURCE_BUDGET.maps;
  const frameId = frames?.[0]?.frame.id;
  const unhashed: string[] = [];
  const plans = listed.map((s) => {
    const size = Number(s['length'] ?? 0);
    const hashed = size <= budget;
    if (hashed) budget -= size;
    else unhashed.push(String(s['url']));
    const map = resolveMap(s);
    const fetchMap = map !== null && !map.startsWith('data:') && maps > 0 && frameId !== undefined;
    if (fetchMap) maps -= 1;
    return { s, size, hashed, map, fetchMap };
  });
  // One limitation for every script the budget left unhashed (their sha256 is null), not one each.
  if (unhashed.length > 0) {
    const named = unhashed.slice(0, UNHASHED_NAMED).join(', ');
    const more = unhashed.length > UNHASHED_NAMED ? ` and ${unhashed.length - UNHASHED_NAMED} more` : '';
    steps.limit(
      'budget-reached',
      `${unhashed.length} ${unhashed.length === 1 ? 'script' : 'scripts'} not hashed: the ${SOURCE_BUDGET.bytes} characters of script source hashed per page were read before ${unhashed.length === 1 ? 'it' : 'them'} (${named}${more}).`,
      'scripts',
    );
  }
  return inParallel(plans, READS_IN_FLIGHT, async ({ s, size, hashed, map, fetchMap }) => {
    const [source, loaded] = await Promise.all([
      hashed
        ? steps.run('script-source-unread', `source of ${String(s['url'])}`, () =>
            page.send('Debugger.getScriptSource', { scriptId: s['scriptId'] }),
          )
        : null,
      fetchMap
        ? steps.run('source-map-unchecked', `source map ${map}`, () =>
            page.send('Network.loadNetworkResource', {
              frameId,
              url: map,
              options: { disableCache: false, includeCredentials: false },
            }),
          )
        : null,
    ]);
    const sha256 =
      source === null
        ? null
        : createHash('sha256')
            .update(String(source['scriptSource'] ?? ''))
            .digest('hex');
    const resolves =
      map !== null && map.startsWith('data:')
        ? /^data:application\/json/.test(map)
        : loaded
          ? (loaded['resource'] as { success?: boolean }).success === true
          : null;
    const url = String(s['url']);
    return {
      url,
      inline: documents.has(url) && Number(s['startLine'] ?? 0) + Number(s['startColumn'] ?? 0) > 0,
      sha256,
      size,
      source_map_url: map,
      source_map_resolves: resolves,
    };
  });
}

function resources(input: CollectInput, frames: FrameNode[]): WebPageInspection['resources'] {
  const { recording, steps } = input;
  if (input.fresh) {
    if (recording.requestsDropped > 0)
      steps.limit(
        'budget-reached',
        `${recording.requestsDropped} requests past the first ${RECORD_LIMITS.requests} are not listed.`,
        'resources',
      );
    return [...recording.requests.values()]
      .filter((r) => originAllowed(r.url, input.origins))
      .map((r) => ({ url: r.url, type: r.type, status: r.status, size: r.size, mime: r.mime, initiator: r.initiator }));
  }
  steps.limit(
    'loaded-before-attach',
    'Resources loaded before REA attached are listed from the frame tree, without status or initiator.',
    'resources',
  );
  return frames
    .flatMap((f) => [{ url: f.frame.url, type: 'Document', mimeType: f.frame.mimeType ?? '' }, ...(f.resources ?? [])])
    .filter((r) => originAllowed(r.url, input.origins))
    .map((r) => ({
      url: r.url,
      type: r.type,
      status: null,
      size: r.contentSize === undefined ? null : Math.round(r.contentSize),
      mime: r.mimeType,
      initiator: null,
    }));
}

/** Reads everything `inspect_web_page` reports from an attached page whose recorder ran. */
export async function collectInspection(input: CollectInput): Promise<WebPageInspection> {
  const { page, recording, steps } = input;
  // The scripts the page parsed before REA's own reads below.
  const parsed = recording.scripts.slice();
  // The reads are independent: they go out together, and the script reads follow the frame tree.
  // An unanswered read is null (a `frames-unread` limitation): no frame is then known, not even the main one.
  const treeRead = steps
    .run('frames-unread', 'frame tree (no frame is listed)', () => page.send('Page.getResourceTree'))
    .then((tree) => (tree === null ? null : flatten(tree['frameTree'] as FrameNode | undefined)));
  const [read, evaluated, cookies, scriptList] = await Promise.all([
    treeRead,
    steps.run('page-unanswered', 'document, DOM outline, stylesheets and storage keys', () =>
      page.send('Runtime.evaluate', {
        expression: pageFactsExpression(input.maxDomNodes, input.storageValues),
        returnByValue: true,
        silent: true,
      }),
    ),
    steps.run('cookies-unread', 'cookies', () => page.send('Network.getCookies')),
    treeRead.then((tree) => scripts(input, tree, parsed)),
  ]);
  const frames = read ?? [];
  const facts = ((evaluated?.['result'] as { value?: PageFacts } | undefined)?.value ?? null) as PageFacts | null;
  const url = facts?.url ?? frames[0]?.frame.url ?? input.target.url;
  const main = [...recording.requests.values()].find((r) => r.type === 'Document' && r.url === url);
  const header = Object.entries(main?.headers ?? {}).filter(([k]) => k.toLowerCase() === 'content-security-policy');
  if (!input.fresh)
    steps.limit(
      'csp-headers-unknown',
      'Response headers of a page loaded before REA attached are not known: only meta CSP is listed.',
    );
  // Attached as it was, the target may be between documents: the listing names where it is going.
  if (
    !input.fresh &&
    facts &&
    (facts.ready !== 'complete' || (input.target.url !== '' && input.target.url !== facts.url))
  )
    steps.limit(
      'load-incomplete',
      input.target.url !== facts.url
        ? `The target was navigating to ${input.target.url} when observed; the document reported is the one it still showed (${facts.url}).`
        : `The page was still loading (document.readyState "${facts.ready}") when observed; what had loaded is reported.`,
    );
  if (recording.consoleStopped)
    steps.limit(
      'console-flood',
      `Console observation stopped after ${RECORD_LIMITS.consoleObserved} messages.`,
      'console',
    );
  if (recording.consoleTotal > recording.console.length)
    steps.limit(
      'budget-reached',
      `Console lists the first ${recording.console.length} of ${recording.consoleTotal} messages observed.`,
      'console',
    );
  // The page's frame tree holds only the frames of its own renderer process: the others are listed
  // from the browser's targets where it names them, and counted from the page's window.frames. Without
  // the tree there is nothing to count them against: the `frames-unread` limitation says so.
  const remote = outOfProcessFrames(frames, input.targets);
  const unread = read === null ? 0 : Math.max((facts?.descendants ?? 0) - (frames.length - 1), remote.length);
  if (unread > 0)
    steps.limit(
      'out-of-process-frames',
      `${unread} frame(s) run in other renderer processes (out-of-process iframes, such as another site's): their scripts, stylesheets, requests, console, storage and DOM are not read${
        remote.length > 0
          ? `; document.frames lists ${remote.length} of them as the browser names them: ${remote
              .slice(0, 5)
              .map((t) => t.url)
              .join(', ')}`
          : ''
      }.`,
      'frames',
    );
  if (facts && facts.outline.length < facts.elements)
    steps.limit(
      'budget-reached',
      `DOM outline lists the first ${facts.outline.length} of ${facts.elements} elements.`,
      'dom',
    );
  return {
    endpoint: input.endpoint,
    target: { id: input.target.targetId, type: input.target.type },
    document: {
      url,
      title: facts?.title ?? input.target.title,
      frames: [
        ...frames.map((f) => ({
          id: f.frame.id,
          parent_id: f.frame.parentId ?? null,
          url: f.frame.url,
          origin: frameOrigin(f.frame),
        })),
        ...remote.map((t) => ({
          id: t.targetId,
          parent_id: t.parentFrameId ?? null,
          url: t.url,
          origin: originOf(t.url),
        })),
      ].filter((f) => originAllowed(f.url, input.origins)),
    },
    scripts: scriptList,
    stylesheets: facts?.styles.filter((s) => originAllowed(s.url, input.origins)) ?? [],
    resources: resources(input, frames),
    console: { total: recording.consoleTotal, messages: recording.console },
    dialogs: recording.dialogs,
    storage: {
      local_storage: facts?.local ?? [],
      session_storage: facts?.session ?? [],
      cookies: ((cookies?.['cookies'] as Array<{ name: string }> | undefined) ?? []).map((c) => c.name).sort(),
    },
    service_workers: input.workers,
    security: {
      scheme: url.split(':')[0] ?? '',
      secure_context: facts?.secure ?? null,
      csp: [
        ...header.flatMap(([, v]) => v.split('\n')).map((policy) => ({ source: 'header' as const, policy })),
        ...(facts?.csp ?? []).map((policy) => ({ source: 'meta' as const, policy })),
      ],
    },
    dom: {
      elements: facts?.elements ?? null,
      outline: facts?.outline ?? [],
      truncated: facts ? facts.outline.length < facts.elements : true,
    },
  };
}
