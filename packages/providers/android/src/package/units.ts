// What every way of reading a package shares: which entries are analyzed, and how the bytes read are
// grouped into units.
import { open } from 'node:fs/promises';
import type { Limitation } from '@rea/evidence';
import type { ArtifactEntry } from '@rea/artifact';
import { readSigningBlock } from '../format/signingBlock.js';
import type { SigningBlock } from '../format/signingBlock.js';
import type { LoadedUnit } from './load.js';

/** Largest entry read (a DEX, the manifest, the resource table); larger ones are listed, not read. */
export const MAX_ENTRY_BYTES = 256 * 1024 * 1024;
/** Most bytes read from one package across its entries. */
export const MAX_TOTAL_BYTES = 1024 * 1024 * 1024;

/** Where a unit's entries are: a prefix (nested APK) or an app-bundle module folder. */
export interface UnitPlace {
  name: string;
  kind: LoadedUnit['kind'];
  prefix: string;
  aabModule: string | null;
}

const DEX_NAME = /^classes\d*\.dex$/;
export const SIGNATURE = /^META-INF\/[^/]+\.(?:RSA|DSA|EC)$/i;
// Compiled XML resources: where a network security configuration lives (read when small).
export const XML_RESOURCE = /^res\/xml[^/]*\/[^/]+\.xml$/;
/** Largest XML resource read (network security configurations are a few KiB). */
export const MAX_XML_RESOURCE = 1024 * 1024;

/**
 * The entries a loader reads, chosen within the budgets: a large XML resource is skipped (it cannot be
 * a network security configuration), an entry past {@link MAX_ENTRY_BYTES} or past
 * {@link MAX_TOTAL_BYTES} in all is left out with an `entry-too-large` limitation.
 */
export class EntryBudget {
  private total = 0;
  /** Paths chosen, in the order offered. */
  readonly selected: string[] = [];

  constructor(private readonly limitations: Limitation[]) {}

  /** Offers the entry at `path` (`inner`: its path inside its unit) of `size` bytes. */
  offer(path: string, inner: string, size: number): void {
    if (XML_RESOURCE.test(inner) && size > MAX_XML_RESOURCE) return;
    if (size > MAX_ENTRY_BYTES || this.total + size > MAX_TOTAL_BYTES) {
      this.limitations.push({
        kind: 'entry-too-large',
        message: `Not read: past the ${MAX_ENTRY_BYTES}-byte entry or ${MAX_TOTAL_BYTES}-byte package budget.`,
        scope: path,
      });
      return;
    }
    this.total += size;
    this.selected.push(path);
  }
}

/** True when the analysis reads the entry `inner` of a unit. */
export function wanted(inner: string, aabModule: string | null): boolean {
  if (aabModule !== null) {
    const rest = inner.slice(aabModule.length + 1);
    return (
      rest === 'manifest/AndroidManifest.xml' ||
      /^dex\/classes\d*\.dex$/.test(rest) ||
      rest === 'resources.pb' ||
      XML_RESOURCE.test(rest)
    );
  }
  return (
    inner === 'AndroidManifest.xml' ||
    inner === 'resources.arsc' ||
    DEX_NAME.test(inner) ||
    SIGNATURE.test(inner) ||
    XML_RESOURCE.test(inner)
  );
}

/** The unit an entry path belongs to, if any. */
export function unitOf(units: readonly UnitPlace[], path: string): UnitPlace | undefined {
  return units.find((u) => path.startsWith(u.prefix) && (u.aabModule === null || path.startsWith(`${u.aabModule}/`)));
}

/** Groups the bytes read (by entry path) and the listed entries into units. */
export function assembleUnits(
  units: readonly UnitPlace[],
  contents: ReadonlyMap<string, Buffer>,
  entries: readonly ArtifactEntry[],
): LoadedUnit[] {
  return units.map((u) => {
    const own = (p: string) => p.startsWith(u.prefix) && (u.aabModule === null || p.startsWith(`${u.aabModule}/`));
    const inner = (p: string) => (u.aabModule === null ? p.slice(u.prefix.length) : p.slice(u.aabModule.length + 1));
    const mine = [...contents].filter(([p]) => own(p));
    const manifestPath =
      u.aabModule === null ? `${u.prefix}AndroidManifest.xml` : `${u.aabModule}/manifest/AndroidManifest.xml`;
    return {
      name: u.name,
      kind: u.kind,
      manifest: contents.get(manifestPath) ?? null,
      manifestIsProto: u.aabModule !== null,
      resources:
        contents.get(u.aabModule === null ? `${u.prefix}resources.arsc` : `${u.aabModule}/resources.pb`) ?? null,
      resourcesAt: null,
      dex: mine
        .filter(([p]) => /(?:^|\/)classes\d*\.dex$/.test(inner(p)))
        .map(([p, bytes]) => ({ path: p, bytes }))
        .sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true })),
      signatureBlocks: mine.filter(([p]) => SIGNATURE.test(inner(p))).map(([p, bytes]) => ({ path: p, bytes })),
      xmlResources: new Map(mine.filter(([p]) => XML_RESOURCE.test(inner(p))).map(([p, bytes]) => [inner(p), bytes])),
      entries: entries.filter((e) => own(e.path)),
    };
  });
}

/** The APK signing block of the file at `path`, or null when it has none. */
export async function signingBlockOf(path: string): Promise<SigningBlock | null> {
  const handle = await open(path, 'r');
  try {
    return await readSigningBlock(handle, (await handle.stat()).size);
  } finally {
    await handle.close();
  }
}
