// One measured REA run in a fresh Node process (start-up counted, as it is for aapt and dexdump).
// Usage: node child.mjs manifest <apk> | node child.mjs dex <dex> | node child.mjs start-up (imports only)
import { readFileSync } from 'node:fs';
import { DexFile, inspectAndroidPackageTool } from '@rea/provider-android';

const [mode, path] = process.argv.slice(2);
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
