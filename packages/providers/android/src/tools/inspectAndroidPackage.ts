import { z } from 'zod';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import { inspectPackage } from '../model/inspect.js';
import { openPackage } from '../model/session.js';
import { verifyNested, verifySignatures } from '../signing/verify.js';
import type { SchemeVerification } from '../signing/verify.js';
import { AndroidPackageSchema } from './schemas.js';
import { PathInput, androidEvidence } from './common.js';

/** `inspect_android_package`: manifest, signing, resources, DEX, native libraries and assets of a package. */
export const inspectAndroidPackageTool = defineTool({
  name: 'inspect_android_package',
  title: 'Inspect Android package',
  description:
    'Decodes an Android package without a JVM: the binary manifest (package, versions, SDK levels, permissions, components with intent filters and exported state, application flags, network security config, @string labels resolved per locale), v1 JAR and v2/v3 signing certificates with each scheme verified (digests and signatures checked), resources.arsc summary, DEX counts, native libraries per ABI, assets. Split sets and bundles report one unit per APK or module.',
  input: z.strictObject({ path: PathInput }),
  result: AndroidPackageSchema,
  examples: [{ input: { path: '/tmp/app-release.apk' }, description: 'Inspect an APK.' }],
  effects: RECORDS_EVIDENCE,
  produces: 'evidence',
  async run(input, context) {
    const pkg = await openPackage(input.path, context.signal);
    const { limitations, ...report } = inspectPackage(pkg.loaded);
    const { format, subject } = pkg.loaded;
    let verification: (SchemeVerification & { unit: string })[] | null = null;
    if ((format === 'apk' || format === 'aab') && subject.format === 'zip') {
      verification = (await verifySignatures(input.path, context.signal, pkg.loaded.read)).map((v) => ({
        unit: '',
        ...v,
      }));
    } else if (format === 'apk-set') {
      const names = report.units.filter((u) => u.kind === 'apk').map((u) => u.name);
      const nested = await verifyNested(input.path, subject.format, names, context.signal);
      verification = nested.flatMap((n) => n.verification.map((v) => ({ unit: n.unit, ...v })));
      for (const n of nested) {
        const unit = report.units.find((u) => u.name === n.unit);
        if (unit !== undefined) unit.signing_block = n.signing_block;
      }
    }
    const result = { ...report, signature_verification: verification };
    return { ...androidEvidence(pkg, 'package', {}, result, limitations), local: { path: input.path } };
  },
});
