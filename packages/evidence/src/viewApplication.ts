import type { EvidenceRecord } from './evidence.js';
import type { JsonValue } from './json.js';

/** The operation whose records carry an application graph. */
export const APPLICATION_OPERATION = 'analyze_javascript_application';

/** Roles listed at most in a summary; the complete list is the parent's `roles`. */
export const MAX_SUMMARY_ROLES = 64;

/** Flag keys listed at most in a summary (those checked at the most sites). */
export const MAX_SUMMARY_FLAGS = 10;

/** The feature flags of an application: how many checks and keys, and the keys checked most. */
export interface FlagFacet {
  /** Flag checks (sites) in the parent's `feature_flags`. */
  sites: number;
  /** Distinct keys. */
  keys: number;
  /** At most {@link MAX_SUMMARY_FLAGS} keys, most sites first, then by key. */
  top: Array<{ key: string; providers: string[]; sites: number }>;
}

/** The application a summary's parent describes. */
export interface ApplicationFacet {
  input_format: string;
  integrity_policy: string;
  electron: boolean;
  /** Name and version of the shallowest package manifest, null when there is none. */
  name: string | null;
  version: string | null;
  /** Electron roles (at most {@link MAX_SUMMARY_ROLES}) with the node each was assigned to. */
  roles: Array<{ role: string; node_id: string }>;
  feature_flags: FlagFacet;
}

/** Coverage of one semantic phase of the parent analysis (read, parse, graph, …). */
export interface SemanticPhaseCoverage {
  phase: string;
  status: 'complete' | 'partial';
  reasons: string[];
}

type Obj = Record<string, JsonValue>;

const isObject = (value: unknown): value is Obj => value !== null && typeof value === 'object' && !Array.isArray(value);
const stringOr = (value: unknown, fallback: string | null): string | null =>
  typeof value === 'string' ? value : fallback;

function rootManifest(manifests: JsonValue | undefined): Obj | null {
  if (!Array.isArray(manifests)) return null;
  let best: Obj | null = null;
  for (const m of manifests) {
    if (!isObject(m) || typeof m['path'] !== 'string') continue;
    const depth = m['path'].split('/').length;
    if (best === null || depth < (best['path'] as string).split('/').length) best = m;
  }
  return best;
}

/** The flag facet of the parent's `feature_flags` checks. */
function flagFacet(flags: JsonValue | undefined): FlagFacet {
  const checks = Array.isArray(flags) ? flags.filter(isObject) : [];
  const byKey = new Map<string, { providers: Set<string>; sites: number }>();
  for (const check of checks) {
    const key = stringOr(check['key'], null);
    if (key === null) continue;
    const entry = byKey.get(key) ?? { providers: new Set<string>(), sites: 0 };
    entry.sites += 1;
    entry.providers.add(stringOr(check['provider'], 'unknown')!);
    byKey.set(key, entry);
  }
  const top = [...byKey]
    .sort(([a, x], [b, y]) => y.sites - x.sites || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, MAX_SUMMARY_FLAGS)
    .map(([key, { providers, sites }]) => ({ key, providers: [...providers].sort(), sites }));
  return { sites: checks.length, keys: byKey.size, top };
}

/**
 * The application facets of a summary of `parent`: the application itself and its coverage per
 * semantic phase, or null when `parent` is not a complete application analysis.
 */
export function applicationSummary(
  parent: EvidenceRecord<unknown>,
): { application: ApplicationFacet; semantic_coverage: SemanticPhaseCoverage[] } | null {
  const result = parent.normalized_result;
  if (parent.operation !== APPLICATION_OPERATION || !isObject(result) || !Array.isArray(result['phases'])) return null;
  const manifest = rootManifest(result['manifests']);
  const roles = Array.isArray(result['roles']) ? result['roles'].filter(isObject) : [];
  return {
    application: {
      input_format: stringOr(result['input_format'], 'unknown')!,
      integrity_policy: stringOr(result['integrity_policy'], 'unknown')!,
      electron: result['electron'] === true,
      name: stringOr(manifest?.['name'], null),
      version: stringOr(manifest?.['version'], null),
      roles: roles.slice(0, MAX_SUMMARY_ROLES).map((r) => ({
        role: stringOr(r['role'], 'unknown')!,
        node_id: stringOr(r['node_id'], 'unknown')!,
      })),
      feature_flags: flagFacet(result['feature_flags']),
    },
    semantic_coverage: result['phases'].filter(isObject).map((p) => ({
      phase: stringOr(p['phase'], 'unknown')!,
      status: p['status'] === 'complete' ? 'complete' : 'partial',
      reasons: Array.isArray(p['reasons']) ? p['reasons'].filter((r): r is string => typeof r === 'string') : [],
    })),
  };
}
