// Ghidra and Hopper pass the provider contract with the stand-in engines of tests/helpers/standin
// (scripted processes speaking the bridge protocol, started through each provider's real launch
// path). The real engines are exercised by the gated suites of each provider package.
import { afterAll, expect } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeProviderContract } from '@rea/contract-tests';
import type { CapabilityCheckContext } from '@rea/contract-tests';
import { isNativePort } from '@rea/native';
import type { NativePort } from '@rea/native';
import { createGhidraProvider } from '@rea/provider-ghidra';
import { createHopperProvider } from '@rea/provider-hopper';
import { createStandinGhidra, createStandinHopper } from '@rea/test-helpers';

const dir = mkdtempSync(join(tmpdir(), 'rea-standin-contract-'));
const targetPath = join(dir, 'target.bin');
writeFileSync(targetPath, Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46]), Buffer.alloc(60, 0x90)]));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const signal = () => new AbortController().signal;
function portOf(context: CapabilityCheckContext): NativePort {
  const session = context.session?.session;
  if (!isNativePort(session)) throw new Error('the session is not a native port');
  return session;
}

const probes = {
  documents: async (c: CapabilityCheckContext) =>
    expect(await portOf(c).document(signal())).toMatchObject({ name: 'target.bin', entry: '0x401000' }),
  procedures: async (c: CapabilityCheckContext) =>
    expect((await portOf(c).procedures({ offset: 0, limit: 10 }, signal())).total).toBe(3),
  instructions: async (c: CapabilityCheckContext) =>
    expect((await portOf(c).instructions('0x401010', { offset: 0, limit: 5 }, signal())).items[0]).toMatchObject({
      mnemonic: 'call',
    }),
  basic_blocks: async (c: CapabilityCheckContext) =>
    expect((await portOf(c).controlFlow('0x401010', signal())).blocks).toHaveLength(1),
  callers_callees: async (c: CapabilityCheckContext) => {
    expect((await portOf(c).callees('0x401010', signal())).calls[0]).toMatchObject({ name: 'helper' });
    expect((await portOf(c).callers('0x401030', signal()))[0]).toMatchObject({ procedure: '0x401010' });
  },
  references: async (c: CapabilityCheckContext) =>
    expect((await portOf(c).procedureReferences('0x401010', signal())).some((r) => r.kind === 'data')).toBe(true),
  strings: async (c: CapabilityCheckContext) =>
    expect((await portOf(c).strings({ offset: 0, limit: 5, query: 'stand-in' }, signal())).total).toBe(1),
  names: async (c: CapabilityCheckContext) => expect(await portOf(c).nameAt('0x401010', signal())).toBe('main'),
  segments: async (c: CapabilityCheckContext) =>
    expect((await portOf(c).segments(signal())).find((s) => s.name === '.text')).toMatchObject({ executable: true }),
  pseudocode: async (c: CapabilityCheckContext) =>
    expect((await portOf(c).pseudocode!('0x401010', signal())).text).toContain('helper();'),
  navigation: async (c: CapabilityCheckContext) => {
    const port = portOf(c);
    port.navigation!.goto('0x401030');
    expect(port.navigation!.current().address).toBe('0x401030');
  },
  comments: async (c: CapabilityCheckContext) =>
    expect((await portOf(c).comments!('0x401010', signal())).comment).toBe('stand-in: entry of main'),
};

describeProviderContract('ghidra (stand-in engine)', () => createGhidraProvider({ env: ghidraEnv() }), {
  target: { path: targetPath, format: 'elf' },
  capabilityProbes: {
    ...probes,
    bookmarks: async (c) =>
      expect(await portOf(c).bookmarks!('0x401010', signal())).toEqual([
        { category: 'Analysis', text: 'stand-in bookmark' },
      ]),
    high_pcode: async (c) =>
      expect((await portOf(c).highPcode!('0x401010', { offset: 0, limit: 1 }, signal())).items[0]?.mnemonic).toBe(
        'CALL',
      ),
  },
});

describeProviderContract('hopper (stand-in engine)', () => createHopperProvider({ env: hopperEnv() }), {
  target: { path: targetPath, format: 'elf' },
  capabilityProbes: probes,
});

function ghidraEnv() {
  return createStandinGhidra(join(dir, 'ghidra'), { mode: 'normal' });
}
function hopperEnv() {
  return createStandinHopper(join(dir, 'hopper'), { mode: 'normal' });
}
