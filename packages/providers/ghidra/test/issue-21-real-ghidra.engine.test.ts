// Gated: runs every native tool against a real Ghidra (GHIDRA_INSTALL_DIR) on a compiled fixture and
// compares Ghidra's procedures with the fixture's function symbols. Skipped, saying why, without one.
import { expect, it } from '@jest/globals';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createNativeTools } from '@rea/native';
import { createGhidraProvider } from '@rea/provider-ghidra';
import { compileFixture, runNativeToolsOnRealEngine, skipUnless, toolsMissing } from '@rea/test-helpers';

const sample = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'capstone', 'test', 'fixtures', 'sample.c');
const gate = process.env['GHIDRA_INSTALL_DIR']
  ? toolsMissing('gcc', 'nm')
  : 'GHIDRA_INSTALL_DIR is not set: no real Ghidra to run the native tools against';

skipUnless(gate)('native tools against a real Ghidra', () => {
  it('answers every native tool and lists every function symbol as a procedure', async () => {
    const path = compileFixture({
      source: sample,
      compiler: 'gcc',
      args: ['-O2', '-fno-inline'],
      output: 'sample-ghidra',
    });
    const provider = createGhidraProvider();
    expect(await provider.probe()).toMatchObject({ status: 'ready' });
    const run = await runNativeToolsOnRealEngine(provider, createNativeTools(), path);
    for (const [tool, outcome] of run.outcomes) expect(`${tool}: ${outcome}`).toBe(`${tool}: ok`);
    for (const [address, name] of run.symbols) expect(`${name} ${run.procedures.has(address)}`).toBe(`${name} true`);
  }, 900_000);
});
