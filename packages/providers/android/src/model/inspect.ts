import { closeSync, openSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import type { Limitation } from '@rea/evidence';
import { isReaError } from '@rea/evidence';
import { parseBinaryXml } from '../format/axml.js';
import { ResourceTable } from '../format/arsc.js';
import { FileBytes } from '../format/fileBytes.js';
import { giveBackLarge, takeLarge } from '../format/scratch.js';
import type { TableInFile } from '../package/lazyTable.js';
import { parseProtoXml } from '../format/protoXml.js';
import { ProtoResourceTable } from '../format/protoTable.js';
import type { ResourceSummary } from '../format/arsc.js';
import { certificateSummary, pkcs7Certificates } from '../format/der.js';
import type { CertificateSummary } from '../format/der.js';
import { openDexSections } from '../format/dex/file.js';
import type { LoadedPackage, LoadedUnit } from '../package/load.js';
import type { SigningBlock } from '../format/signingBlock.js';
import { readManifest } from './manifest.js';
import type { Manifest } from './manifest.js';
import { readNetworkSecurityConfig } from './networkSecurity.js';
import type { NetworkSecurityConfig } from './networkSecurity.js';

/** Assets listed at most per unit. */
export const MAX_ASSETS = 200;

/** The DEX summary of one file. */
export interface DexSummary {
  path: string;
  version: string;
  classes: number;
  methods: number;
  fields: number;
  strings: number;
  types: number;
}

/** What inspect_android_package reports of one APK or module. */
export interface UnitReport {
  name: string;
  kind: LoadedUnit['kind'];
  manifest: Manifest | null;
  network_security_config: NetworkSecurityConfig | null;
  resources: ResourceSummary | null;
  dex: DexSummary[];
  native_libraries: { abi: string; libraries: string[] }[];
  assets: { count: number; paths: string[] };
  v1_signers: { path: string; certificates: CertificateSummary[] }[];
  /** The APK Signing Block of an APK inside a set (filled in by the caller, which reads the APK). */
  signing_block: SigningBlock | null;
}

function why(error: unknown): string {
  return isReaError(error) || error instanceof Error ? error.message : String(error);
}

/** Decodes one unit; any part that cannot be decoded becomes a limitation and a null/empty field. */
export function inspectUnit(unit: LoadedUnit, limitations: Limitation[]): UnitReport {
  // A resource table left in the file is read from it while the unit is decoded: whole into the kept
  // large buffer when it is free, else through a few pages.
  let fd: number | null = null;
  let whole: Buffer | null = null;
  let table: Buffer | FileBytes | null = null;
  try {
    const at = unit.resources === null ? unit.resourcesAt : null;
    if (at !== null) {
      fd = openSync(at.file, 'r');
      whole = takeLarge(at.size);
      // A table that cannot be read whole (a file cut short since it was loaded) is read through pages
      // as ever: only the parts the decoding looks at then need to be there.
      table =
        (whole === null ? null : readTable(fd, at, whole)) ?? new FileBytes(fd, at.offset, at.size, 'resources.arsc');
    }
  } catch (error) {
    limitations.push({ kind: 'resources-unreadable', message: why(error) });
  }
  try {
    return inspectOpenUnit(unit, limitations, table);
  } finally {
    if (table instanceof FileBytes) table.release();
    if (whole !== null) giveBackLarge(whole);
    if (fd !== null) closeSync(fd);
  }
}

/**
 * The table `at` read whole into `into` (a view of it), or null when the file no longer holds all of it
 * or a read fails; its CRC-32 is given to the load's pending check of it, if any (see
 * {@link TableInFile.seen}).
 */
function readTable(fd: number, at: TableInFile, into: Buffer): Buffer | null {
  const bytes = into.subarray(0, at.size);
  try {
    for (let done = 0; done < at.size;) {
      const n = readSync(fd, bytes, done, at.size - done, at.offset + done);
      if (n === 0) return null;
      done += n;
    }
  } catch {
    return null;
  }
  // The load's pending check of its CRC-32 takes it from here rather than read the bytes again.
  if (at.seen !== undefined && at.seen.crc32 === null) at.seen.crc32 = crc32(bytes) >>> 0;
  return bytes;
}

function inspectOpenUnit(unit: LoadedUnit, limitations: Limitation[], inFile: Buffer | FileBytes | null): UnitReport {
  const scope = unit.name === '' ? undefined : unit.name;
  const note = (kind: string, message: string, at?: string) => {
    const where = at ?? scope;
    limitations.push(where === undefined ? { kind, message } : { kind, message, scope: where });
  };
  let table: ResourceTable | ProtoResourceTable | null = null;
  const source = unit.resources ?? inFile;
  if (source !== null) {
    try {
      // A table left in the file is an APK's binary one (an app bundle's protobuf table is read into memory).
      table =
        unit.manifestIsProto && unit.resources !== null
          ? new ProtoResourceTable(unit.resources)
          : new ResourceTable(source);
      if (table.truncated)
        note('resources-cut', 'The resource table has more type chunks than are indexed; later ones are not read.');
    } catch (error) {
      note('resources-unreadable', why(error));
    }
  }
  let manifest: Manifest | null = null;
  if (unit.manifest === null) {
    if (unit.kind !== 'dex') note('manifest-missing', 'No AndroidManifest.xml was read.');
  } else {
    try {
      const doc = unit.manifestIsProto ? parseProtoXml(unit.manifest) : parseBinaryXml(unit.manifest);
      if (doc.stringFaults > 0)
        note(
          'manifest-strings',
          `${doc.stringFaults} string references of the manifest are out of range; they read as empty.`,
        );
      if (doc.truncated !== null) note('manifest-cut', `The manifest was cut (${doc.truncated}).`);
      manifest = readManifest(doc, table);
    } catch (error) {
      note('manifest-unreadable', why(error));
    }
  }
  let networkSecurity: NetworkSecurityConfig | null = null;
  const nscPath = manifest?.application.network_security_config ?? null;
  if (nscPath !== null && !nscPath.startsWith('@')) {
    const bytes = unit.xmlResources.get(nscPath);
    if (bytes === undefined) note('network-security-config-missing', `${nscPath} was not read.`);
    else {
      try {
        networkSecurity = readNetworkSecurityConfig(nscPath, bytes, unit.manifestIsProto);
      } catch (error) {
        note('network-security-config-unreadable', why(error), nscPath);
      }
    }
  }
  const dex: DexSummary[] = [];
  for (const file of unit.dex) {
    try {
      for (const { path, file: d } of openDexSections(file.path, file.bytes, { checksum: unit.kind === 'dex' })) {
        if (d.trailingBytes > 0 && d.headerOffset === 0) {
          note(
            'dex-container-rest',
            `${d.trailingBytes} bytes follow the DEX data (past its size) and are not read.`,
            file.path,
          );
        }
        dex.push({
          path,
          version: d.version,
          classes: d.classDefs.size,
          methods: d.methods.size,
          fields: d.fields.size,
          strings: d.strings.size,
          types: d.types.size,
        });
      }
    } catch (error) {
      note('dex-unreadable', why(error), file.path);
    }
  }
  const abis = new Map<string, string[]>();
  const assets: string[] = [];
  let assetCount = 0;
  const prefix =
    unit.kind === 'apk' && unit.name !== '' ? `${unit.name}!/` : unit.kind === 'aab-module' ? `${unit.name}/` : '';
  for (const entry of unit.entries) {
    if (entry.kind !== 'file') continue;
    const inner = entry.path.slice(prefix.length);
    const lib = /^lib\/([^/]+)\/([^/]+\.so)$/.exec(inner);
    if (lib !== null) abis.set(lib[1]!, [...(abis.get(lib[1]!) ?? []), lib[2]!]);
    else if (inner.startsWith('assets/') && !inner.includes('!/')) {
      assetCount++;
      if (assets.length < MAX_ASSETS) assets.push(inner);
    }
  }
  if (assetCount > MAX_ASSETS) note('assets-cut', `${assetCount} assets; the first ${MAX_ASSETS} are listed.`);
  const v1 = unit.signatureBlocks.map((block) => {
    try {
      return { path: block.path, certificates: pkcs7Certificates(block.bytes).map(certificateSummary) };
    } catch (error) {
      note('signature-unreadable', why(error), block.path);
      return { path: block.path, certificates: [] };
    }
  });
  return {
    name: unit.name,
    kind: unit.kind,
    manifest,
    network_security_config: networkSecurity,
    resources: table?.summary() ?? null,
    dex,
    native_libraries: [...abis].sort().map(([abi, libraries]) => ({ abi, libraries: libraries.sort() })),
    assets: { count: assetCount, paths: assets },
    v1_signers: v1,
    signing_block: null,
  };
}

/** The whole report of a package: its units, its APK Signing Block and what could not be read. */
export function inspectPackage(pkg: LoadedPackage) {
  const limitations: Limitation[] = [...pkg.limitations];
  const units = pkg.units.map((u) => inspectUnit(u, limitations));
  const block = pkg.signingBlock;
  if (block !== null && block.problems.length > 0) {
    limitations.push(...block.problems.map((message) => ({ kind: 'signing-block', message })));
  }
  return { format: pkg.format, units, signing_block: block, limitations };
}
