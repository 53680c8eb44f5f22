import { z } from 'zod';
import { createAnalysisProfile } from '@rea/evidence';
import type { Coverage, JsonObject, Limitation, ProviderIdentity } from '@rea/evidence';
import { ANDROID_PROVIDER_VERSION } from '../version.js';
import type { OpenedPackage } from '../model/session.js';

/** The identity recorded as `provider` in Android package Evidence. */
export const ANDROID_PROVIDER: ProviderIdentity = Object.freeze({
  id: 'android',
  name: '@rea/provider-android',
  version: ANDROID_PROVIDER_VERSION,
});

/** The `path` input every static tool takes. */
export const PathInput = z
  .string()
  .min(1)
  .describe('An .apk, .aab, .xapk/.apks, a folder of split APKs, or a .dex file.');

/** `class` input: a descriptor or a dotted name. */
export const ClassInput = z.string().min(1).max(4096).describe('Class as Lcom/example/Foo; or com.example.Foo.');

/** Paging inputs. */
export const PageInput = {
  offset: z.number().int().min(0).default(0).describe('First item (default 0).'),
  limit: z.number().int().min(1).max(2000).default(200).describe('Items per page (default 200, at most 2000).'),
};

/**
 * What the package's load left out that a tool reading its DEX files must state (inspect_android_package
 * states every limitation of the load itself): DEX files or APKs not read, or read and contradicting
 * their declared integrity, and references in the DEX files read that resolve to nothing.
 */
function dexLimitations(pkg: OpenedPackage): Limitation[] {
  const out = pkg.loaded.limitations.filter(
    (l) => l.kind === 'entries-cut' || (l.scope !== undefined && /\.(?:dex|apk)$/i.test(l.scope)),
  );
  const faults = pkg.dex.reduce((sum, d) => sum + d.file.faults, 0);
  if (faults > 0)
    out.push({
      kind: 'dex-references-unresolved',
      message: `References in the DEX data resolve to nothing (${faults} found so far, shown as <bad …> placeholders): the DEX data is damaged or not what its header describes.`,
    });
  return out;
}

/** The evidence fields every Android tool fills the same way. */
export function androidEvidence<R>(
  pkg: OpenedPackage,
  name: string,
  parameters: JsonObject,
  result: R,
  limitations: Limitation[],
  nextOffset: number | null = null,
) {
  const all = [
    ...limitations,
    // inspect_android_package states the load's limitations and unreadable DEX files itself.
    ...(name === 'package' ? [] : dexLimitations(pkg)),
    ...(name === 'package'
      ? []
      : pkg.unreadable.map((u) => ({ kind: 'dex-unreadable', message: u.message, scope: u.path }))),
  ];
  const reasons = [...new Set(all.map((l) => l.kind))];
  if (nextOffset !== null) reasons.push('more items: page with offset');
  const coverage: Coverage =
    reasons.length === 0
      ? { status: 'complete', reasons: [] }
      : { status: 'partial', reasons, ...(nextOffset !== null ? { next_offset: nextOffset } : {}) };
  return {
    subject: pkg.loaded.subject,
    provider: ANDROID_PROVIDER,
    analysis_profile: createAnalysisProfile({ name: `android-${name}`, version: '1', settings: {} }),
    parameters,
    normalized_result: result,
    raw_result: null,
    confidence: 'observed' as const,
    limitations: all,
    coverage,
    locations: [],
    evidence_links: [],
  };
}
