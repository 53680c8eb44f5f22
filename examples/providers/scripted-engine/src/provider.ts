import { access } from 'node:fs/promises';
import { z } from 'zod';
import { createAnalysisProfile, throwIfAborted } from '@rea/evidence';
import { NO_EFFECTS, createSessionObservation, defineTool, requireCapability } from '@rea/provider-kit';
import type { DeepProvider } from '@rea/provider-kit';
import { startEngine } from './engine.js';
import type { Engine } from './engine.js';

/** The engine session tools receive as `binding.session`. */
export interface ScriptedSession {
  read(offset: number, length: number): Promise<string>;
  /** Not a capability of this engine: refuses with `capability_unavailable`. */
  disassemble(address: number): Promise<never>;
}

const identity = { id: 'scripted-engine', name: 'Scripted stand-in engine', version: '0.0.1' };

/**
 * A deep provider over a stand-in engine process: `open` starts the engine through the session's
 * supervisor, its one tool reads target bytes through the engine, `close` stops it.
 */
export function createScriptedEngineProvider(): DeepProvider {
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
    open: async (target, options) => {
      throwIfAborted(options.signal, 'open');
      const engine: Engine = await startEngine(target.path, options);
      const session: ScriptedSession = {
        read: (offset, length) => engine.read(offset, length),
        disassemble: async () => {
          requireCapability(provider, 'disassembly', { alternatives: ['capstone'] });
          throw new Error('unreachable');
        },
      };
      return {
        provider: { ...identity, version: engine.version },
        analysis_profile: createAnalysisProfile({ name: 'scripted', version: '1', settings: {} }),
        session,
        close: () => engine.stop(),
      };
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
    availability: ({ session }) =>
      session.binding?.provider.id === identity.id
        ? { available: true }
        : {
            available: false,
            reason: 'No target is open.',
            remediation: 'Open one with provider_id "scripted-engine".',
          },
    produces: 'evidence',
    run: async ({ offset, length }, { session }) => {
      requireCapability(provider, 'read-bytes');
      const hex = await (session.binding!.session as ScriptedSession).read(offset, length);
      return createSessionObservation(session, { parameters: { offset, length }, normalized_result: { hex } });
    },
  });
  return provider;
}
