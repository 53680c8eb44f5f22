// The analysis, phase by phase: read (through @rea/artifact), inventory, parse and facts per file,
// bundled modules, source maps, graph, Electron roles. Cancellation is checked between phases and
// files and inside long walks; the event loop is released between files.
import { setImmediate as released } from 'node:timers/promises';
import { ReaError, throwIfAborted } from '@rea/evidence';
import type { Coverage, Limitation } from '@rea/evidence';
import type { IntegrityPolicy } from '@rea/artifact';
import { parseJavaScript } from '../engine/parser.js';
import type { Asset, JavascriptApplication } from '../schemas.js';
import { externalRequires } from './bindings.js';
import { recoverBundle } from './bundles.js';
import { chunkLinks } from './chunkLinks.js';
import { assignRoles } from './electron.js';
import { collectFacts } from './facts.js';
import { moduleParams } from './moduleParams.js';
import { mainsByFolder, resolveFromBase, resolveSpecifier } from './graph.js';
import { assetsOf, fileNodeId, inlineScripts, readHtml, readManifest } from './inventory.js';
import type { InlineScript } from './inventory.js';
import { readApplication } from './read.js';
import { resolveSourceMap } from './sourceMaps.js';
import { Collector } from './collector.js';
import type { InputFacts } from './collector.js';
import { fileRecord } from './fileRecord.js';

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
function stopAt(bound: ResourceBound, rest: { path: string; node_id: string }[], parsed: number, c: Sink): void {
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
    c.file(fileRecord(script.path, null));
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

/** Where the read and parse phases put what they find: a {@link Collector}, or a worker's channel to one. */
export type Sink = Pick<Collector, 'phase' | 'unknown' | 'file'>;

/** What the later phases need of the input besides the per-file records (plain data). */
export interface Prelude {
  input: InputFacts;
  policy: IntegrityPolicy;
  assets: Asset[];
  manifests: JavascriptApplication['manifests'];
  html: JavascriptApplication['html_entries'];
  /** Logical paths of every file of the input. */
  known: string[];
  /** The HTML pages that hold JavaScript written inside them (inline `<script>`). */
  inlinePages: string[];
  /** The scripts to parse, in the order they are parsed. */
  scripts: { path: string; node_id: string }[];
}

/** Options of {@link gatherApplication}: those of {@link analyzeApplication}, and who hears of the prelude. */
export interface GatherOptions extends AnalyzeOptions {
  /** Called once the inventory is done, before the first script is parsed. */
  onPrelude?: (prelude: Prelude) => void;
}

/**
 * The read, inventory and parse phases: every observation goes to `sink` as soon as it is made (one
 * record per script, in the order of `prelude.scripts`). Resolves to the prelude.
 */
export async function gatherApplication(path: string, options: GatherOptions, sink: Sink): Promise<Prelude> {
  const { signal } = options;
  const policy = options.integrityPolicy ?? 'fail-closed';
  const progress = options.onProgress ?? (() => undefined);
  const check = (phase: string) => throwIfAborted(signal, phase);
  const c = sink;

  progress('reading the application', 'read');
  const input = await readApplication(path, policy, signal);
  c.phase('read', input.unread.length === 0 ? [] : [`${input.unread.length} files not read`]);
  for (const file of input.unread) c.unknown(fileNodeId(file.path), file.kind, file.message);
  check('inventory');

  const assets = assetsOf(input.entries);
  const known = input.entries.filter((e) => e.kind === 'file').map((e) => e.path);
  const knownSet = new Set(known);
  const manifests = [];
  const html = [];
  const inline: { path: string; node_id: string; script: InlineScript }[] = [];
  for (const asset of assets) {
    const bytes = input.contents.get(asset.path);
    if (bytes === undefined) continue;
    if (asset.kind === 'manifest') {
      const manifest = readManifest(asset.path, bytes.toString('utf8'));
      if (manifest === null)
        c.unknown(asset.node_id, 'malformed-manifest', 'The package manifest is not a JSON object.');
      else manifests.push(manifest);
    } else if (asset.kind === 'html') {
      const text = bytes.toString('utf8');
      html.push(readHtml(asset.path, text, knownSet));
      for (const script of inlineScripts(text)) inline.push({ path: asset.path, node_id: asset.node_id, script });
    }
  }
  const inventoryReasons = input.inventoryCoverage.status === 'partial' ? input.inventoryCoverage.reasons : [];
  c.phase('inventory', [
    ...inventoryReasons,
    ...(input.contradictions.length > 0 ? [`${input.contradictions.length} integrity contradictions continued`] : []),
  ]);
  progress(`${assets.length} assets classified`, 'inventory');

  const scripts = assets.filter((a) => a.kind === 'javascript' && input.contents.has(a.path));
  const prelude: Prelude = {
    input: {
      format: input.format,
      subject: input.subject,
      contradictions: input.contradictions,
      inventoryLimitations: input.inventoryLimitations,
    },
    policy,
    assets,
    manifests: manifests.sort((a, b) => (a.path < b.path ? -1 : 1)),
    html: html.sort((a, b) => (a.path < b.path ? -1 : 1)),
    known,
    inlinePages: [...new Set(inline.map((i) => i.path))],
    scripts: scripts.map((s) => ({ path: s.path, node_id: s.node_id })),
  };
  options.onPrelude?.(prelude);
  let parsed = 0;
  let stopped = 0;
  progress(`parsing ${scripts.length} scripts`, 'parse');
  for (const [index, script] of scripts.entries()) {
    check('parse');
    // The event loop gets a turn every few scripts (each turn costs a round trip through it).
    if (index % 8 === 0) await released();
    const bound = options.bound?.() ?? null;
    if (bound !== null) {
      stopAt(bound, scripts.slice(index), parsed, c);
      stopped = scripts.length - index;
      break;
    }
    const bytes = input.contents.get(script.path)!;
    // The bytes are no longer needed once decoded: drop them so memory holds one copy.
    input.contents.delete(script.path);
    const text = decode(bytes);
    if (text === null) {
      c.unknown(script.node_id, 'not-utf8', 'The file is not valid UTF-8; it was not parsed.');
      c.file(fileRecord(script.path, null));
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
      c.file(fileRecord(script.path, null, map));
      continue;
    }
    parsed += 1;
    const bundle = recoverBundle(outcome.program, text, outcome.lineComments, () => check('bundles'), map.decoded);
    // A bundle's own modules that re-export electron or fs are followed through the bundler's require.
    const facts = collectFacts(
      outcome.program,
      () => check('parse'),
      text,
      externalRequires(bundle),
      moduleParams(bundle.modules),
    );
    if (map.status === 'none' && looksMinified(text)) {
      c.unknown(
        script.node_id,
        'minified-without-source-map',
        'Minified code without a source map: names are those of the bundle.',
      );
    }
    const modules = bundle.single === undefined ? bundle.modules : [...bundle.modules, bundle.single];
    const links = chunkLinks(outcome.program, modules, () => check('bundles'));
    c.file(fileRecord(script.path, { sourceType: outcome.sourceType, facts, bundle, text, links }, map));
    if (parsed % 100 === 0) progress(`${parsed} of ${scripts.length} scripts parsed`, 'parse');
  }
  const inlineParsed = stopped === 0 ? parseInline(inline, c, () => check('parse')) : 0;
  for (const { node_id } of stopped === 0 ? [] : inline)
    c.unknown(
      node_id,
      'not-parsed-resource-bound',
      'An inline script was not parsed: the analysis stopped at a bound.',
    );
  const unparsed = scripts.length - parsed;
  const inlineUnparsed = inline.length - inlineParsed;
  c.phase('parse', [
    ...(unparsed === 0 ? [] : [`${unparsed} of ${scripts.length} scripts not parsed`]),
    ...(inlineUnparsed === 0 ? [] : [`${inlineUnparsed} of ${inline.length} inline scripts not parsed`]),
    ...(stopped === 0 ? [] : [`stopped at a resource bound before ${stopped} scripts`]),
  ]);
  progress(`${parsed} scripts parsed`, 'parse');
  return prelude;
}

/**
 * Parses the scripts written inside HTML pages and records their facts as the page's, at their
 * positions in the page. Returns how many were parsed; the others are unknowns of their page.
 */
function parseInline(
  inline: readonly { path: string; node_id: string; script: InlineScript }[],
  c: Sink,
  every: () => void,
): number {
  let parsed = 0;
  for (const { path, node_id, script } of inline) {
    every();
    // Padding before the text puts every line and column where it is in the page.
    const text = '\n'.repeat(script.line - 1) + ' '.repeat(script.column) + script.text;
    const outcome = parseJavaScript(text, script.module);
    if (!outcome.ok) {
      c.unknown(
        node_id,
        outcome.reason === 'too-deeply-nested' ? 'too-deeply-nested' : 'unparsable',
        `The inline script at line ${script.line}: ${outcome.message}`,
      );
      continue;
    }
    parsed += 1;
    const facts = collectFacts(outcome.program, every, text);
    const bundle = { bundler: null, modules: [], edges: [] };
    const record = fileRecord(path, { sourceType: outcome.sourceType, facts, bundle, text });
    record.inline = true;
    record.role = null;
    c.file(record);
  }
  return parsed;
}

/**
 * The phases after the parse, over everything `c` holds: bundles and source-map coverage, the graph,
 * Electron roles, and the complete result. Cancellation is checked between phases.
 */
export function assembleApplication(
  c: Collector,
  prelude: Prelude,
  options: Pick<AnalyzeOptions, 'signal' | 'onProgress'> = {},
): AnalyzeOutcome {
  const check = (phase: string) => throwIfAborted(options.signal, phase);
  const progress = options.onProgress ?? (() => undefined);
  c.phase('bundles', []);
  c.phase('source-maps', c.unresolvedMaps > 0 ? [`${c.unresolvedMaps} source maps unresolved`] : []);
  check('graph');
  progress('resolving imports between modules', 'graph');
  const known = new Set(prelude.known);
  // What require and import load: scripts, JSON and native addons (`require("./addon.node")`).
  const jsFiles = new Set(prelude.known.filter((p) => /\.(?:[cm]?js|json|node)$/i.test(p)));
  const mains = mainsByFolder(prelude.manifests);
  c.resolveEdges((from, specifier, base) =>
    base === true ? resolveFromBase(from, specifier, known) : resolveSpecifier(from, specifier, jsFiles, mains),
  );
  c.phase('graph', c.unresolvedEdges > 0 ? [`${c.unresolvedEdges} relative imports name no file of the input`] : []);
  check('electron');

  progress('assigning Electron roles', 'electron');
  const { manifests, html } = prelude;
  const electron = c.usesElectron || manifests.some((m) => 'electron' in m.dependencies);
  const inline = new Set(prelude.inlinePages);
  const roles = electron ? assignRoles({ manifests, files: c.roleFiles, html, inline, known }) : [];
  c.applyRoles(roles);
  c.phase('electron', []);
  check('sealing');
  progress('assembling the result', 'result');
  return c.finish({ ...prelude, electron, roles });
}

/**
 * Analyzes the JavaScript application at `path` (a directory, an ASAR archive, a ZIP-based package or
 * one script). Unparsable, non-UTF-8 or oversized files are per-file unknowns, never a failed analysis.
 * Rejects with the typed errors of @rea/artifact's inventory and extraction, and `cancelled`.
 */
export async function analyzeApplication(path: string, options: AnalyzeOptions = {}): Promise<AnalyzeOutcome> {
  const c = new Collector();
  const prelude = await gatherApplication(path, options, c);
  return assembleApplication(c, prelude, options);
}
