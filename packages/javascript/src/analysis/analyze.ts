// The analysis, phase by phase: read (through @rea/artifact), inventory, parse and facts per file,
// bundled modules, source maps, graph, Electron roles. Cancellation is checked between phases and
// files and inside long walks; the event loop is released between files.
import { setImmediate as released } from 'node:timers/promises';
import { ReaError, throwIfAborted } from '@rea/evidence';
import type { Coverage, Limitation } from '@rea/evidence';
import type { IntegrityPolicy } from '@rea/artifact';
import { parseJavaScript } from '../engine/parser.js';
import type { JavascriptApplication } from '../schemas.js';
import { recoverBundle } from './bundles.js';
import { assignRoles } from './electron.js';
import { collectFacts } from './facts.js';
import { resolveFromBase, resolveSpecifier } from './graph.js';
import { assetsOf, fileNodeId, readHtml, readManifest } from './inventory.js';
import { readApplication } from './read.js';
import { resolveSourceMap } from './sourceMaps.js';
import { Collector } from './collector.js';

/** Options of {@link analyzeApplication}. */
export interface AnalyzeOptions {
  integrityPolicy?: IntegrityPolicy;
  signal?: AbortSignal;
  onProgress?: (message: string, phase: string) => void;
  /**
   * Asked before each script is parsed: the resource bound the analysis is close to (see
   * {@link ResourceBound}), or null to go on. Once it answers, the scripts not yet parsed become
   * per-file unknowns and the analysis ends with what it finished; before the first script, it ends as
   * `resource_constraint`.
   */
  bound?: () => ResourceBound | null;
}

/** A resource bound an analysis stopped at: heap (`memory`) or deadline (`cpu`). */
export interface ResourceBound {
  resource: 'memory' | 'cpu';
  /** What was reached, for a person ("the 2048 MiB heap limit"). */
  reached: string;
  /** The setting to raise. */
  setting: 'max_heap_mb' | 'max_duration_ms';
}

/** Records the scripts left unparsed at `bound` as unknowns, or fails when none was parsed. */
function stopAt(bound: ResourceBound, rest: { path: string; node_id: string }[], parsed: number, c: Collector): void {
  const remediation = `Raise ${bound.setting}, or analyze a smaller part of the application (one directory or archive).`;
  if (parsed === 0) {
    throw new ReaError(
      'resource_constraint',
      `The analysis came close to ${bound.reached} before any script was parsed.`,
      {
        details: { resource: bound.resource, reason: 'bound-before-first-script' },
        remediation,
      },
    );
  }
  for (const script of rest) {
    c.unknown(script.node_id, 'not-parsed-resource-bound', `Not parsed: the analysis came close to ${bound.reached}.`);
    c.fileModule(script.path, null);
  }
  c.unknown(
    'application',
    `stopped-at-${bound.resource}-bound`,
    `The analysis came close to ${bound.reached} and stopped parsing; ${rest.length} scripts were not parsed. ${remediation}`,
  );
}

/** The complete result with the Evidence fields it implies. */
export interface AnalyzeOutcome {
  subject: { format: string; sha256: string; size: number };
  result: JavascriptApplication;
  coverage: Coverage;
  limitations: Limitation[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decode(bytes: Buffer): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** Minified: at least 256 characters on lines averaging more than 200. */
function looksMinified(text: string): boolean {
  if (text.length < 256) return false;
  let lines = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines += 1;
  return text.length / lines > 200;
}

/**
 * Analyzes the JavaScript application at `path` (a directory, an ASAR archive, a ZIP-based package or
 * one script). Unparsable, non-UTF-8 or oversized files are per-file unknowns, never a failed analysis.
 * Rejects with the typed errors of @rea/artifact's inventory and extraction, and `cancelled`.
 */
export async function analyzeApplication(path: string, options: AnalyzeOptions = {}): Promise<AnalyzeOutcome> {
  const { signal } = options;
  const policy = options.integrityPolicy ?? 'fail-closed';
  const progress = options.onProgress ?? (() => undefined);
  const check = (phase: string) => throwIfAborted(signal, phase);
  const c = new Collector();

  progress('reading the application', 'read');
  const input = await readApplication(path, policy, signal);
  c.phase('read', input.unread.length === 0 ? [] : [`${input.unread.length} files not read`]);
  for (const file of input.unread) c.unknown(fileNodeId(file.path), file.kind, file.message);
  check('inventory');

  const assets = assetsOf(input.entries);
  const known = new Set(input.entries.filter((e) => e.kind === 'file').map((e) => e.path));
  const manifests = [];
  const html = [];
  for (const asset of assets) {
    const bytes = input.contents.get(asset.path);
    if (bytes === undefined) continue;
    if (asset.kind === 'manifest') {
      const manifest = readManifest(asset.path, bytes.toString('utf8'));
      if (manifest === null)
        c.unknown(asset.node_id, 'malformed-manifest', 'The package manifest is not a JSON object.');
      else manifests.push(manifest);
    } else if (asset.kind === 'html') {
      html.push(readHtml(asset.path, bytes.toString('utf8'), known));
    }
  }
  const inventoryReasons = input.inventoryCoverage.status === 'partial' ? input.inventoryCoverage.reasons : [];
  c.phase('inventory', [
    ...inventoryReasons,
    ...(input.contradictions.length > 0 ? [`${input.contradictions.length} integrity contradictions continued`] : []),
  ]);
  progress(`${assets.length} assets classified`, 'inventory');

  const scripts = assets.filter((a) => a.kind === 'javascript' && input.contents.has(a.path));
  const roleFiles = [];
  let parsed = 0;
  let stopped = 0;
  progress(`parsing ${scripts.length} scripts`, 'parse');
  for (const [index, script] of scripts.entries()) {
    check('parse');
    await released();
    const bound = options.bound?.() ?? null;
    if (bound !== null) {
      stopAt(bound, scripts.slice(index), parsed, c);
      stopped = scripts.length - index;
      break;
    }
    const text = decode(input.contents.get(script.path)!);
    if (text === null) {
      c.unknown(script.node_id, 'not-utf8', 'The file is not valid UTF-8; it was not parsed.');
      c.fileModule(script.path, null);
      continue;
    }
    const outcome = parseJavaScript(
      text,
      script.path.endsWith('.mjs') || /\b(?:import|export)\b/.test(text.slice(0, 4096)),
    );
    const map = resolveSourceMap(script.path, text, input.contents);
    if (!outcome.ok) {
      c.unknown(
        script.node_id,
        outcome.reason === 'too-deeply-nested' ? 'too-deeply-nested' : 'unparsable',
        outcome.message,
      );
      c.fileModule(script.path, null, map);
      continue;
    }
    parsed += 1;
    const facts = collectFacts(outcome.program, () => check('parse'));
    const bundle = recoverBundle(outcome.program, text, outcome.lineComments, () => check('bundles'), map.decoded);
    if (map.status === 'none' && looksMinified(text)) {
      c.unknown(
        script.node_id,
        'minified-without-source-map',
        'Minified code without a source map: names are those of the bundle.',
      );
    }
    c.fileModule(script.path, { sourceType: outcome.sourceType, facts, bundle, text }, map);
    roleFiles.push({ path: script.path, preloads: facts.preloads, loadedPages: facts.loadedPages });
    if (parsed % 100 === 0) progress(`${parsed} of ${scripts.length} scripts parsed`, 'parse');
  }
  const unparsed = scripts.length - parsed;
  c.phase('parse', [
    ...(unparsed === 0 ? [] : [`${unparsed} of ${scripts.length} scripts not parsed`]),
    ...(stopped === 0 ? [] : [`stopped at a resource bound before ${stopped} scripts`]),
  ]);
  c.phase('bundles', []);
  c.phase('source-maps', c.unresolvedMaps > 0 ? [`${c.unresolvedMaps} source maps unresolved`] : []);
  check('graph');
  progress(`${parsed} scripts parsed`, 'parse');

  progress('resolving imports between modules', 'graph');
  const jsFiles = new Set([...known].filter((p) => /\.(?:[cm]?js|json)$/i.test(p)));
  c.resolveEdges((from, specifier, base) =>
    base === true ? resolveFromBase(from, specifier, known) : resolveSpecifier(from, specifier, jsFiles),
  );
  c.phase('graph', c.unresolvedEdges > 0 ? [`${c.unresolvedEdges} relative imports name no file of the input`] : []);
  check('electron');

  progress('assigning Electron roles', 'electron');
  const electron = c.usesElectron || manifests.some((m) => 'electron' in m.dependencies);
  const roles = electron ? assignRoles({ manifests, files: roleFiles, html, known }) : [];
  c.applyRoles(roles);
  c.phase('electron', []);
  check('sealing');
  progress('assembling the result', 'result');
  return c.finish({
    input,
    policy,
    electron,
    roles,
    assets,
    manifests: manifests.sort((a, b) => (a.path < b.path ? -1 : 1)),
    html: html.sort((a, b) => (a.path < b.path ? -1 : 1)),
  });
}
