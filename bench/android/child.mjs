// One measured REA run in a fresh Node process (start-up counted, as it is for aapt and dexdump).
// Usage: node child.mjs manifest <apk> | node child.mjs dex <dex> | node child.mjs start-up (imports only)
// [dist]: another build's packages/providers/android/dist to run instead of the workspace's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [mode, path, dist] = process.argv.slice(2);
const { DexFile, inspectAndroidPackageTool } = await import(
  dist ? pathToFileURL(join(dist, 'index.js')).href : '@rea/provider-android'
);
const noop = () => undefined;
const context = { signal: new AbortController().signal, progress: { report: noop } };
if (mode === 'start-up') {
  process.stdout.write(`${typeof DexFile}\n`);
} else if (mode === 'manifest') {
  const record = await inspectAndroidPackageTool.run(inspectAndroidPackageTool.input.parse({ path }), context);
  process.stdout.write(`${record.normalized_result.units[0].manifest.package}\n`);
} else {
  // Every class with every method's name and prototype, as `dexdump` lists them.
  const dex = new DexFile(readFileSync(path));
  let lines = 0;
  for (let i = 0; i < dex.classDefs.size; i++) {
    const def = dex.classDef(i);
    dex.type(def.classIdx);
    const data = dex.classData(def.classDataOff);
    for (const m of [...data.directMethods, ...data.virtualMethods]) {
      const ref = dex.method(m.index);
      if (ref.name.length >= 0) lines += 1;
    }
  }
  process.stdout.write(`${lines}\n`);
}
