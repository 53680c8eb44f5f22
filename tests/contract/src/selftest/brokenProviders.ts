// Providers that each break one rule of the provider contract. Not a test of its own: the contract
// self-test runs this file in a separate jest process and checks that exactly the broken rules fail.
import { afterAll } from '@jest/globals';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReaError, createAnalysisProfile, throwIfAborted } from '@rea/evidence';
import { z } from 'zod';
import { NO_EFFECTS, defineTool } from '@rea/provider-kit';
import type { DeepProvider } from '@rea/provider-kit';
import { describeProviderContract } from '../describeProviderContract.js';

const dir = mkdtempSync(join(tmpdir(), 'rea-contract-selftest-'));
const target = { path: join(dir, 'target.raw'), format: 'raw' };
writeFileSync(target.path, 'bytes');
const stray: ChildProcess[] = [];
afterAll(() => {
  for (const child of stray) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function base(id: string, overrides: Partial<DeepProvider> = {}): DeepProvider {
  return {
    id,
    name: id,
    version: '1.0.0',
    kind: 'deep',
    port: 'bytes',
    capabilities: ['read-bytes'],
    probe: async () => ({ status: 'ready' }),
    tools: () => [],
    open: async (_target, { signal }) => {
      throwIfAborted(signal, 'open');
      return {
        provider: { id, name: id, version: '1.0.0' },
        analysis_profile: createAnalysisProfile({ name: id, version: '1', settings: {} }),
        session: null,
        close: async () => undefined,
      };
    },
    ...overrides,
  };
}

// A check that uses the provider: the open session is the one `base` returns.
const works = {
  'read-bytes': async ({ session }: { session: { session: unknown } | null }) => {
    if (session === null || session.session !== null) throw new Error('the session is not the one open returned');
  },
};

describeProviderContract(
  'probe-starts-engine',
  () =>
    base('probe-starts-engine', {
      probe: async () => {
        stray.push(spawn('sleep', ['300'], { stdio: 'ignore' }));
        return { status: 'ready' };
      },
    }),
  { target, capabilityProbes: works },
);

describeProviderContract(
  'leaky-close',
  () =>
    base('leaky-close', {
      open: async (_target, { signal, supervisor }) => {
        throwIfAborted(signal, 'open');
        await supervisor.start('sleep', ['300']);
        return {
          provider: { id: 'leaky-close', name: 'leaky', version: '1.0.0' },
          analysis_profile: createAnalysisProfile({ name: 'leaky', version: '1', settings: {} }),
          session: null,
          close: async () => undefined, // forgets its engine
        };
      },
    }),
  { target, capabilityProbes: works },
);

describeProviderContract('undeclared-works', () => base('undeclared-works'), {
  target,
  capabilityProbes: works,
  undeclared: { disassembly: async () => 'it ran anyway' },
});

describeProviderContract('missing-check', () => base('missing-check', { capabilities: ['read-bytes', 'strings'] }), {
  target,
  capabilityProbes: works,
});

const crashing = defineTool({
  name: 'crash_on_example',
  title: 'Crash',
  description: 'Fails with an untyped exception on its own advertised example, which the suite must catch.',
  input: z.object({ at: z.number().describe('Anything.') }),
  result: z.object({}),
  examples: [{ input: { at: 1 } }],
  effects: { ...NO_EFFECTS, readOnly: true, idempotent: true },
  produces: 'result',
  run: async () => {
    throw new TypeError('cannot read properties of undefined');
  },
});

describeProviderContract('tool-crashes', () => base('tool-crashes', { tools: () => [crashing] }), {
  target,
  capabilityProbes: works,
});

const leaking = defineTool({
  name: 'leak_a_process',
  title: 'Leak',
  description: 'Starts a process outside the call supervisor and returns while it still runs.',
  input: z.object({ at: z.number().describe('Anything.') }),
  result: z.object({}),
  examples: [{ input: { at: 1 } }],
  effects: { ...NO_EFFECTS, readOnly: true, idempotent: true, launchesProcess: true },
  produces: 'result',
  run: async () => {
    stray.push(spawn('sleep', ['300'], { stdio: 'ignore' }));
    return {};
  },
});

describeProviderContract('tool-leaks-process', () => base('tool-leaks-process', { tools: () => [leaking] }), {
  target,
  capabilityProbes: works,
});

describeProviderContract('check-cannot-fail', () => base('check-cannot-fail'), {
  target,
  capabilityProbes: { 'read-bytes': async () => undefined }, // asserts nothing about the provider
});

const refusing = defineTool({
  name: 'refuse_own_example',
  title: 'Refuse',
  description: 'Refuses its own advertised example with a typed error, which no longer counts as working.',
  input: z.object({ at: z.number().describe('Anything.') }),
  result: z.object({}),
  examples: [{ input: { at: 1 } }],
  effects: { ...NO_EFFECTS, readOnly: true, idempotent: true },
  produces: 'result',
  run: async () => {
    throw new ReaError('capability_unavailable', 'Not here.', { details: { capability: 'read-bytes' } });
  },
});

describeProviderContract('example-refused', () => base('example-refused', { tools: () => [refusing] }), {
  target,
  capabilityProbes: works,
});

describeProviderContract(
  'capability-broken',
  () => base('capability-broken', { tools: () => [{ ...refusing, examples: [] }] }),
  {
    target,
    capabilityProbes: { 'read-bytes': async ({ runTool }) => void (await runTool('refuse_own_example', { at: 0 })) },
  },
);
