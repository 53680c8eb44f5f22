import { expect } from '@jest/globals';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeProviderContract } from '@rea/contract-tests';
import type { CapabilityCheckContext } from '@rea/contract-tests';
import { createNativeTools, isNativePort } from '@rea/native';
import type { NativePort } from '@rea/native';
import { createCapstoneProvider } from '@rea/provider-capstone';
import { executeTool } from '@rea/provider-kit';
import { compileFixture, quietToolContext, toolsMissing } from '@rea/test-helpers';

const here = dirname(fileURLToPath(import.meta.url));
const source = resolve(here, '..', '..', '..', 'packages', 'providers', 'capstone', 'test', 'fixtures', 'sample.c');
const signal = () => new AbortController().signal;

function portOf(context: CapabilityCheckContext): NativePort {
  const session = context.session?.session;
  if (!isNativePort(session)) throw new Error('the capstone session is not a native port');
  return session;
}

async function main(port: NativePort): Promise<string> {
  const address = await port.addressOf('main', signal());
  expect(address).toMatch(/^0x[0-9a-f]+$/);
  return address!;
}

/** Runs one of the composition's native tools with the contract suite's binding. */
function runNative(context: CapabilityCheckContext, name: string, input: object) {
  const tool = createNativeTools().find((t) => t.name === name)!;
  const toolContext = quietToolContext({
    session: { target: context.target, binding: context.binding, run_id: 'run_contract' },
    signal: context.signal,
  });
  return executeTool(tool, input, toolContext);
}

describeProviderContract('capstone (embedded engine)', () => createCapstoneProvider(), {
  skipReason: toolsMissing('gcc'),
  target: () => ({
    path: compileFixture({
      source: join(source),
      compiler: 'gcc',
      args: ['-O2', '-fno-inline'],
      output: 'sample-x64-contract',
    }),
    format: 'elf',
    architecture: 'x86_64',
  }),
  capabilityProbes: {
    documents: async (c) =>
      expect(await portOf(c).document(signal())).toMatchObject({ format: 'elf', architecture: 'x86_64' }),
    procedures: async (c) => {
      const page = await portOf(c).procedures({ offset: 0, limit: 1000 }, signal());
      expect(page.items.map((p) => p.name)).toEqual(expect.arrayContaining(['main', 'fib', 'classify', 'puts']));
    },
    instructions: async (c) => {
      const page = await portOf(c).instructions(await main(portOf(c)), { offset: 0, limit: 5 }, signal());
      expect(page.items).toHaveLength(5);
    },
    basic_blocks: async (c) => {
      const flow = await portOf(c).controlFlow(await main(portOf(c)), signal());
      expect(flow.blocks.length).toBeGreaterThan(1);
      expect(flow.edges.length).toBeGreaterThan(0);
    },
    callers_callees: async (c) => {
      const port = portOf(c);
      const callees = await port.callees(await main(port), signal());
      expect(callees.calls.map((x) => x.name)).toEqual(expect.arrayContaining(['classify', 'printf']));
      const fib = (await port.addressOf('fib', signal()))!;
      expect((await port.callers(fib, signal())).length).toBeGreaterThan(1);
    },
    references: async (c) => {
      const port = portOf(c);
      const refs = await port.procedureReferences(await main(port), signal());
      expect(refs.some((r) => r.kind === 'data')).toBe(true);
    },
    strings: async (c) => {
      const page = await portOf(c).strings({ offset: 0, limit: 10, query: 'password check' }, signal());
      expect(page.total).toBe(1);
    },
    names: async (c) => {
      const port = portOf(c);
      expect(await port.nameAt(await main(port), signal())).toBe('main');
    },
    segments: async (c) => {
      const segments = await portOf(c).segments(signal());
      expect(segments.find((s) => s.name === '.text')).toMatchObject({ executable: true });
    },
    navigation: async (c) => {
      const port = portOf(c);
      const address = await main(port);
      port.navigation!.goto(address);
      expect(port.navigation!.current().address).toBe(address);
    },
  },
  undeclared: {
    pseudocode: (c) => runNative(c, 'procedure_pseudo_code', { procedure: 'main' }),
  },
});
