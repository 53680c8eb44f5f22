import type { EvidenceRecord } from './evidence.js';
import type { JsonValue } from './json.js';

/** The operation whose records carry an application graph. */
export const APPLICATION_OPERATION = 'analyze_javascript_application';

/** Roles listed at most in a summary; the complete list is the parent's `roles`. */
export const MAX_SUMMARY_ROLES = 64;

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
    },
    semantic_coverage: result['phases'].filter(isObject).map((p) => ({
      phase: stringOr(p['phase'], 'unknown')!,
      status: p['status'] === 'complete' ? 'complete' : 'partial',
      reasons: Array.isArray(p['reasons']) ? p['reasons'].filter((r): r is string => typeof r === 'string') : [],
    })),
  };
}
