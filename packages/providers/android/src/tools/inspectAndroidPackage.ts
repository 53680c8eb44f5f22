import { statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { z } from 'zod';
import type { ZipEntries } from '@rea/artifact';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import { inspectPackage } from '../model/inspect.js';
import { openPackage } from '../model/session.js';
import { beginDigest, letGoOfDigest } from '../package/direct.js';
import type { EarlyDigest } from '../package/direct.js';
import { openZipForReuse, verifyNested, verifySignatures } from '../signing/verify.js';
import type { SchemeVerification } from '../signing/verify.js';
import { AndroidPackageSchema } from './schemas.js';
import { PathInput, androidEvidence } from './common.js';

/** `inspect_android_package`: manifest, signing, resources, DEX, native libraries and assets of a package. */
export const inspectAndroidPackageTool = defineTool({
  name: 'inspect_android_package',
  title: 'Inspect Android package',
  description:
    'Decodes an Android package without a JVM: the binary manifest (package, versions, SDK levels, permissions, components with intent filters and exported state, application flags, network security config, @string labels resolved per locale), v1 JAR and v2/v3 signing certificates with each scheme verified (digests and signatures checked), resources.arsc summary, DEX counts, native libraries per ABI, assets. Split sets and bundles report one unit per APK or module.',
  input: z.strictObject({
    path: PathInput,
    verify_signatures: z
      .boolean()
      .default(true)
      .describe(
        'Check every signature and digest (default true). With false, certificates are read and nothing is checked (faster; signature_verification null).',
      ),
  }),
  result: AndroidPackageSchema,
  examples: [{ input: { path: '/tmp/app-release.apk' }, description: 'Inspect an APK.' }],
  effects: RECORDS_EVIDENCE,
  produces: 'evidence',
  async run(input, context) {
    // Without verification, the digest thread (when it runs) hashes the file from the start of the call.
    const early = input.verify_signatures ? null : await beginDigest(input.path, context.signal);
    try {
      // One listing of the ZIP's central directory serves the package load and the v1 verification.
      let info: Stats | null = null;
      try {
        info = statSync(input.path);
      } catch {
        // The load reports a path it cannot read, typed.
      }
      const zip = info?.isFile() ? await openZipForReuse(input.path, context.signal) : undefined;
      try {
        return await inspect(input.path, zip, context.signal, input.verify_signatures, early);
      } finally {
        zip?.close();
      }
    } finally {
      letGoOfDigest(early);
    }
  },
});

async function inspect(
  path: string,
  zip: ZipEntries | undefined,
  signal: AbortSignal | undefined,
  verify: boolean,
  early: EarlyDigest | null,
) {
  // The package is decoded while the digest thread, when it runs, computes the file's digests.
  let pkg = await openPackage(path, signal, zip, verify, early ?? true);
  let inspected = inspectPackage(pkg.loaded);
  if (pkg.loaded.settled !== undefined && !(await pkg.loaded.settled)) {
    pkg = await openPackage(path, signal, zip, verify);
    inspected = inspectPackage(pkg.loaded);
  }
  const { limitations, ...report } = inspected;
  const { format, subject } = pkg.loaded;
  let verification: (SchemeVerification & { unit: string })[] | null = null;
  if (!verify && format !== 'dex') {
    limitations.push({
      kind: 'signatures-not-verified',
      message: 'verify_signatures was false: certificates are reported, no signature or digest was checked.',
    });
  }
  if (verify && (format === 'apk' || format === 'aab') && subject.format === 'zip') {
    const reuse = {
      ...(pkg.loaded.read ? { known: pkg.loaded.read } : {}),
      ...(pkg.loaded.contentDigests ? { digests: pkg.loaded.contentDigests } : {}),
      ...(zip ? { zip } : {}),
    };
    verification = (await verifySignatures(path, signal, reuse)).map((v) => ({ unit: '', ...v }));
  } else if (format === 'apk-set') {
    const nested = await verifyNested(path, subject.format, apkUnits(report.units), signal, verify);
    if (verify) verification = nested.flatMap((n) => n.verification.map((v) => ({ unit: n.unit, ...v })));
    for (const n of nested) {
      const unit = report.units.find((u) => u.name === n.unit);
      if (unit !== undefined) unit.signing_block = n.signing_block;
    }
  }
  const result = { ...report, signature_verification: verification };
  return { ...androidEvidence(pkg, 'package', {}, result, limitations), local: { path } };
}

function apkUnits(units: readonly { kind: string; name: string }[]): string[] {
  return units.filter((u) => u.kind === 'apk').map((u) => u.name);
}
