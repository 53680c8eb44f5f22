import { z } from 'zod';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import { inspectPackage } from '../model/inspect.js';
import { openPackage } from '../model/session.js';
import { AndroidPackageSchema } from './schemas.js';
import { PathInput, androidEvidence } from './common.js';

/** `inspect_android_package`: manifest, signing, resources, DEX, native libraries and assets of a package. */
export const inspectAndroidPackageTool = defineTool({
  name: 'inspect_android_package',
  title: 'Inspect Android package',
  description:
    'Decodes an Android package without a JVM: the binary manifest (package, versions, SDK levels, permissions, components with intent filters and exported state, application flags, network security config, @string labels resolved per locale), v1 JAR and v2/v3 signing-block certificates with digests (not verified), resources.arsc summary, DEX counts, native libraries per ABI, assets. Split sets and bundles report one unit per APK or module.',
  input: z.strictObject({ path: PathInput }),
  result: AndroidPackageSchema,
  examples: [{ input: { path: '/tmp/app-release.apk' }, description: 'Inspect an APK.' }],
  effects: RECORDS_EVIDENCE,
  produces: 'evidence',
  async run(input, context) {
    const pkg = await openPackage(input.path, context.signal);
    const { limitations, ...result } = inspectPackage(pkg.loaded);
    return { ...androidEvidence(pkg, 'package', {}, result, limitations), local: { path: input.path } };
  },
});
