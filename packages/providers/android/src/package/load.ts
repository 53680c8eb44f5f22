// Reading an Android package through @rea/artifact: the inventory says what exists (with its integrity
// policy and budgets); the bytes of the entries the analysis reads come from an extraction of just those
// entries, removed before this returns. A raw DEX file is read directly.
import { open, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ReaError, throwIfAborted } from '@rea/evidence';
import type { Limitation } from '@rea/evidence';
import { extractArtifact, inspectArtifact } from '@rea/artifact';
import type { ArtifactEntry } from '@rea/artifact';
import { readSigningBlock } from '../format/signingBlock.js';
import type { SigningBlock } from '../format/signingBlock.js';

/** Largest entry read (a DEX, the manifest, the resource table); larger ones are listed, not read. */
export const MAX_ENTRY_BYTES = 256 * 1024 * 1024;
/** Most bytes read from one package across its entries. */
export const MAX_TOTAL_BYTES = 1024 * 1024 * 1024;

/** One APK (or AAB module) of a package. */
export interface LoadedUnit {
  /** `""` for the package itself, else the path of the nested APK or the AAB module name. */
  name: string;
  kind: 'apk' | 'aab-module' | 'dex';
  manifest: Buffer | null;
  /** True when the manifest is in the protobuf form of an app bundle (not decoded). */
  manifestIsProto: boolean;
  resources: Buffer | null;
  dex: { path: string; bytes: Buffer }[];
  signatureBlocks: { path: string; bytes: Buffer }[];
  /** Compiled XML resources (res/xml*), by their path inside the unit. */
  xmlResources: Map<string, Buffer>;
  entries: ArtifactEntry[];
}

/** A package as read: its subject, units and what was not read. */
export interface LoadedPackage {
  subject: { format: string; sha256: string; size: number };
  format: 'apk' | 'aab' | 'apk-set' | 'dex';
  units: LoadedUnit[];
  signingBlock: SigningBlock | null;
  limitations: Limitation[];
}

const DEX_NAME = /^classes\d*\.dex$/;
const SIGNATURE = /^META-INF\/[^/]+\.(?:RSA|DSA|EC)$/i;
// Compiled XML resources: where a network security configuration lives (read when small).
const XML_RESOURCE = /^res\/xml[^/]*\/[^/]+\.xml$/;
/** Largest XML resource read (network security configurations are a few KiB). */
const MAX_XML_RESOURCE = 1024 * 1024;

function wanted(inner: string, aabModule: string | null): boolean {
  if (aabModule !== null) {
    const rest = inner.slice(aabModule.length + 1);
    return rest === 'manifest/AndroidManifest.xml' || /^dex\/classes\d*\.dex$/.test(rest) || rest === 'resources.pb';
  }
  return (
    inner === 'AndroidManifest.xml' ||
    inner === 'resources.arsc' ||
    DEX_NAME.test(inner) ||
    SIGNATURE.test(inner) ||
    XML_RESOURCE.test(inner)
  );
}

async function loadDex(path: string, signal: AbortSignal | undefined): Promise<LoadedPackage> {
  const info = await stat(path);
  if (info.size > MAX_ENTRY_BYTES) {
    throw new ReaError('resource_constraint', `${path} is larger than ${MAX_ENTRY_BYTES} bytes.`, {
      details: { path, budget: 'max_entry_bytes', limit: MAX_ENTRY_BYTES },
    });
  }
  throwIfAborted(signal, 'reading');
  const bytes = await readFile(path);
  const { createHash } = await import('node:crypto');
  return {
    subject: { format: 'dex', sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length },
    format: 'dex',
    units: [
      {
        name: '',
        kind: 'dex',
        manifest: null,
        manifestIsProto: false,
        resources: null,
        dex: [{ path: 'classes.dex', bytes }],
        signatureBlocks: [],
        xmlResources: new Map(),
        entries: [],
      },
    ],
    signingBlock: null,
    limitations: [],
  };
}

async function isDex(path: string): Promise<boolean> {
  const handle = await open(path, 'r').catch(() => null);
  if (handle === null) return false;
  try {
    const head = Buffer.alloc(4);
    await handle.read(head, 0, 4, 0);
    return head.toString('latin1') === 'dex\n';
  } finally {
    await handle.close();
  }
}

/**
 * Reads an APK, an AAB, a split-APK set (XAPK, APKS, a ZIP or folder of APKs) or a DEX file.
 * Errors are those of @rea/artifact (`not_found`, `unsupported_target`, `artifact_integrity_mismatch`,
 * `cancelled`, …); a container holding no Android package is `unsupported_target`.
 */
export async function loadPackage(path: string, signal: AbortSignal | undefined): Promise<LoadedPackage> {
  if (await isDex(path)) return loadDex(path, signal);
  const outcome = await inspectArtifact(path, {
    integrityPolicy: 'record-and-continue',
    ...(signal ? { signal } : {}),
  });
  const entries = outcome.inventory.entries;
  const limitations: Limitation[] = [...outcome.limitations];
  const paths = new Set(entries.map((e) => e.path));
  // Units: the package itself, AAB modules, or nested APKs.
  const units: { name: string; kind: LoadedUnit['kind']; prefix: string; aabModule: string | null }[] = [];
  let format: LoadedPackage['format'];
  if (paths.has('AndroidManifest.xml')) {
    format = 'apk';
    units.push({ name: '', kind: 'apk', prefix: '', aabModule: null });
  } else if ([...paths].some((p) => /^[^/]+\/manifest\/AndroidManifest\.xml$/.test(p))) {
    format = 'aab';
    for (const p of paths) {
      const m = /^([^/]+)\/manifest\/AndroidManifest\.xml$/.exec(p);
      if (m !== null) units.push({ name: m[1]!, kind: 'aab-module', prefix: '', aabModule: m[1]! });
    }
  } else {
    format = 'apk-set';
    for (const p of paths) {
      if (p.endsWith('.apk!/AndroidManifest.xml')) {
        const name = p.slice(0, -'!/AndroidManifest.xml'.length);
        units.push({ name, kind: 'apk', prefix: `${name}!/`, aabModule: null });
      }
    }
  }
  if (units.length === 0) {
    throw new ReaError(
      'unsupported_target',
      `${path} holds no AndroidManifest.xml: it is not an APK, an app bundle or a set of APKs.`,
      {
        details: { path, reason: 'not-android', format: outcome.inventory.format },
        remediation: 'Pass an .apk, .aab, .xapk/.apks, a folder of split APKs, or a .dex file.',
      },
    );
  }
  units.sort((a, b) => a.name.localeCompare(b.name));
  let total = 0;
  const select: string[] = [];
  for (const entry of entries) {
    if (entry.kind !== 'file') continue;
    const unit = units.find(
      (u) => entry.path.startsWith(u.prefix) && (u.aabModule === null || entry.path.startsWith(`${u.aabModule}/`)),
    );
    if (unit === undefined || !wanted(entry.path.slice(unit.prefix.length), unit.aabModule)) continue;
    if (entry.integrity === 'contradicted') {
      limitations.push({
        kind: 'integrity-contradicted',
        message: 'Its bytes contradict their declared integrity; not analyzed.',
        scope: entry.path,
      });
    } else if (XML_RESOURCE.test(entry.path.slice(unit.prefix.length)) && entry.size > MAX_XML_RESOURCE) {
      continue;
    } else if (entry.size > MAX_ENTRY_BYTES || total + entry.size > MAX_TOTAL_BYTES) {
      limitations.push({
        kind: 'entry-too-large',
        message: `Not read: past the ${MAX_ENTRY_BYTES}-byte entry or ${MAX_TOTAL_BYTES}-byte package budget.`,
        scope: entry.path,
      });
    } else {
      total += entry.size;
      select.push(entry.path);
    }
  }
  const contents = new Map<string, Buffer>();
  if (select.length > 0) {
    const { outputDirectory } = await extractArtifact(path, {
      select,
      integrityPolicy: 'record-and-continue',
      ...(signal ? { signal } : {}),
    });
    try {
      for (const p of select) {
        throwIfAborted(signal, 'reading');
        const bytes = await readFile(join(outputDirectory, p)).catch(() => null);
        if (bytes === null)
          limitations.push({ kind: 'entry-unreadable', message: 'The extraction did not produce it.', scope: p });
        else contents.set(p, bytes);
      }
    } finally {
      await rm(outputDirectory, { recursive: true, force: true });
    }
  }
  const loaded: LoadedUnit[] = units.map((u) => {
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
      resources: u.aabModule === null ? (contents.get(`${u.prefix}resources.arsc`) ?? null) : null,
      dex: mine
        .filter(([p]) => /(?:^|\/)classes\d*\.dex$/.test(inner(p)))
        .map(([p, bytes]) => ({ path: p, bytes }))
        .sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true })),
      signatureBlocks: mine.filter(([p]) => SIGNATURE.test(inner(p))).map(([p, bytes]) => ({ path: p, bytes })),
      xmlResources: new Map(mine.filter(([p]) => XML_RESOURCE.test(inner(p))).map(([p, bytes]) => [inner(p), bytes])),
      entries: entries.filter((e) => own(e.path)),
    };
  });
  let signingBlock: SigningBlock | null = null;
  if (format === 'apk' && outcome.inventory.format === 'zip') {
    const handle = await open(path, 'r');
    try {
      signingBlock = await readSigningBlock(handle, (await handle.stat()).size);
    } finally {
      await handle.close();
    }
  }
  return { subject: outcome.subject, format, units: loaded, signingBlock, limitations };
}
