import { expect } from '@jest/globals';
import { describeProviderContract } from '@rea/contract-tests';
import { createAndroidProvider } from '../src/index.js';

const APK = '/usr/share/doc/androguard/examples/android/TestsAndroguard/bin/TestActivity.apk';

describeProviderContract('android (static analysis)', () => createAndroidProvider(), {
  // Advertised examples name a hypothetical APK; run them on androguard's sample application.
  exampleInput: (_tool, input) => {
    const mapped = { ...(input as Record<string, unknown>), path: APK };
    if ('class' in mapped) mapped['class'] = 'tests.androguard.TestActivity';
    return mapped;
  },
  capabilityProbes: {
    'android-package-analysis': async ({ runTool }) => {
      await expect(runTool('inspect_android_package', { path: APK })).resolves.toMatchObject({
        kind: 'evidence',
        record: { normalized_result: { format: 'apk', units: [{ manifest: { package: 'tests.androguard' } }] } },
      });
      await expect(runTool('inspect_android_package', { path: '/nonexistent/app.apk' })).rejects.toMatchObject({
        code: 'not_found',
      });
    },
    'android-bytecode-analysis': async ({ runTool }) => {
      await expect(
        runTool('inspect_android_method', { path: APK, class: 'tests.androguard.TestActivity', method: 'onCreate' }),
      ).resolves.toMatchObject({ kind: 'evidence', record: { normalized_result: { name: 'onCreate' } } });
      await expect(runTool('inspect_android_class', { path: APK, class: 'no.such.Class' })).rejects.toMatchObject({
        code: 'not_found',
      });
    },
  },
});
