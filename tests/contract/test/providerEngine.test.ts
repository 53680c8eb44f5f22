// A deep provider over a scripted stand-in engine: a real Node child process speaking a line protocol
// over stdio, with a project directory and a helper grandchild, so the contract suite exercises real
// process ownership and cleanup. It stands in for an engine bridge; it is not an analysis engine.
import { afterAll, expect } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { access } from 'node:fs/promises';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { createAnalysisProfile, throwIfAborted } from '@rea/evidence';
import { NO_EFFECTS, createSessionObservation, defineTool, requireCapability, withDeadline } from '@rea/provider-kit';
import type { DeepProvider, OwnedProcess } from '@rea/provider-kit';
import { describeProviderContract } from '@rea/contract-tests';

const ENGINE = `
const fs = require('node:fs');
const { spawn } = require('node:child_process');
const [target, project] = process.argv.slice(1);
fs.writeFileSync(project + '/project.json', JSON.stringify({ target }));
spawn('sleep', ['300'], { stdio: 'ignore' }); // an indexer helper: a grandchild of the host
const lines = require('node:readline').createInterface({ input: process.stdin });
console.log(JSON.stringify({ ready: true, version: '2.3.0' }));
lines.on('line', (line) => {
  const { offset, length } = JSON.parse(line);
  const buffer = Buffer.alloc(length);
  const fd = fs.openSync(target, 'r');
  const read = fs.readSync(fd, buffer, 0, length, offset);
  fs.closeSync(fd);
  console.log(JSON.stringify({ hex: buffer.subarray(0, read).toString('hex') }));
});
`;

/** The engine session tools receive: one request at a time over the engine's stdio. */
interface EngineSession {
  read(offset: number, length: number): Promise<string>;
  disassemble(address: number): Promise<never>;
}

const identity = { id: 'scripted-engine', name: 'Scripted stand-in engine', version: '0.0.1' };

function createScriptedEngineProvider(): DeepProvider {
  const provider: DeepProvider = {
    ...identity,
    kind: 'deep',
    port: 'bytes',
    capabilities: ['read-bytes'],
    probe: async () => {
      // Checks the runtime is there; starts nothing.
      try {
        await access(process.execPath);
        return { status: 'ready' };
      } catch {
        return { status: 'unavailable', reason: 'node is missing', remediation: 'Install Node.js.' };
      }
    },
    supportsTarget: (target) => (target.format === 'raw' ? 'supported' : 'unsupported'),
    tools: () => [readTool],
    open: async (target, { signal, supervisor }) => {
      throwIfAborted(signal, 'open');
      const project = await supervisor.createTempDir('scripted');
      let engine: OwnedProcess | undefined;
      try {
        engine = await supervisor.start(process.execPath, ['-e', ENGINE, target.path, project], {
          stdin: 'pipe',
          stdout: 'pipe',
          signal,
        });
        const lines = createInterface({ input: engine.stdout! })[Symbol.asyncIterator]();
        const next = async (): Promise<Record<string, unknown>> => {
          const { value, done } = await lines.next();
          if (done) throw new Error('engine closed its output');
          return JSON.parse(value as string) as Record<string, unknown>;
        };
        const hello = await withDeadline(() => next(), {
          ms: 20_000,
          signal,
          phase: 'startup',
          providerId: identity.id,
        });
        const running = engine;
        const session: EngineSession = {
          read: async (offset, length) => {
            running.stdin!.write(`${JSON.stringify({ offset, length })}\n`);
            return String((await next())['hex']);
          },
          disassemble: async () => {
            requireCapability(provider, 'disassembly', { alternatives: ['capstone'] });
            throw new Error('unreachable');
          },
        };
        return {
          provider: { ...identity, version: String(hello['version']) },
          analysis_profile: createAnalysisProfile({ name: 'scripted', version: '1', settings: {} }),
          session,
          close: async () => {
            running.stdin!.end();
            await supervisor.closeAll({ graceMs: 2000 });
          },
        };
      } catch (error) {
        await supervisor.closeAll({ graceMs: 500 }).catch(() => undefined);
        throw error;
      }
    },
  };
  const readTool = defineTool({
    name: 'read_engine_bytes',
    title: 'Read bytes through the engine',
    description: 'Asks the stand-in engine for bytes of the open target and returns them as hex.',
    input: z.object({
      offset: z.number().int().nonnegative().describe('File offset.'),
      length: z.number().int().min(1).max(256).describe('Byte count.'),
    }),
    result: z.object({ hex: z.string() }),
    examples: [{ input: { offset: 0, length: 4 } }],
    effects: { ...NO_EFFECTS, mutatesSession: true, idempotent: true },
    produces: 'evidence',
    run: async ({ offset, length }, { session }) => {
      requireCapability(provider, 'read-bytes');
      const hex = await (session.binding!.session as EngineSession).read(offset, length);
      return createSessionObservation(session, { parameters: { offset, length }, normalized_result: { hex } });
    },
  });
  return provider;
}

const dir = mkdtempSync(join(tmpdir(), 'rea-contract-engine-'));
const targetPath = join(dir, 'target.raw');
writeFileSync(targetPath, randomBytes(300));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeProviderContract('scripted stand-in engine', () => createScriptedEngineProvider(), {
  target: { path: targetPath, format: 'raw' },
  capabilityProbes: {
    'read-bytes': async ({ runTool, supervisor, binding }) => {
      expect(binding?.provider.version).toBe('2.3.0');
      const outcome = await runTool('read_engine_bytes', { offset: 17, length: 200 });
      const expected = readFileSync(targetPath).subarray(17, 217).toString('hex');
      expect(outcome).toMatchObject({ kind: 'evidence', record: { normalized_result: { hex: expected } } });
      // The engine and its helper are owned and observed while the session is open.
      const [lineage] = supervisor.lineage();
      expect(lineage).toMatchObject({ status: 'verified', launcher_alive: true });
      if (lineage?.status === 'verified') expect(lineage.descendants.map((d) => d.comm)).toContain('sleep');
      expect(supervisor.owned().map((r) => r.kind)).toContain('temp-directories');
    },
  },
  undeclared: {
    disassembly: async ({ session }) => (session!.session as EngineSession).disassemble(0x1000),
  },
});
