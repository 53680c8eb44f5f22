import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { createAnalysisProfile } from '@rea/evidence';
import { createSessionObservation, defineTool } from '@rea/provider-kit';
import type { DeepProvider } from '@rea/provider-kit';

const identity = { id: 'bytes', name: 'Raw bytes', version: '1.0.0' };

/** A deep provider whose engine session is the target's bytes, loaded by `open`. */
export function createBytesProvider(): DeepProvider {
  const readBytes = defineTool({
    name: 'read_target_bytes',
    title: 'Read target bytes',
    description: 'Reads 16 bytes of the open target at a file offset and returns them as hex.',
    input: z.object({ offset: z.number().int().nonnegative().describe('File offset of the first byte.') }),
    result: z.object({ hex: z.string() }),
    examples: [{ input: { offset: 0 } }],
    effects: {
      readOnly: false, // recording Evidence changes the session
      mutatesSession: true,
      writesFilesystem: false,
      launchesProcess: false,
      executesForeignCode: false,
      mutatesDevice: false,
      mayDiscardData: false,
      idempotent: true,
      openWorld: false,
    },
    availability: ({ session }) =>
      session.binding?.provider.id === identity.id
        ? { available: true }
        : { available: false, reason: 'No bytes target is open.', remediation: 'Open one with provider_id "bytes".' },
    produces: 'evidence',
    run: async ({ offset }, { session }) => {
      const bytes = (session.binding!.session as Buffer).subarray(offset, offset + 16);
      return createSessionObservation(session, {
        parameters: { offset },
        normalized_result: { hex: bytes.toString('hex') },
        coverage:
          bytes.length < 16 ? { status: 'partial', reasons: ['end of file'] } : { status: 'complete', reasons: [] },
        locations: [{ kind: 'file-offset', value: String(offset), length: bytes.length }],
      });
    },
  });
  return {
    ...identity,
    kind: 'deep',
    port: 'bytes', // the port it implements; selection compares providers of one port only
    capabilities: ['read-bytes'],
    probe: async () => ({ status: 'ready', version: identity.version }),
    tools: () => [readBytes],
    open: async (target, { signal }) => {
      const bytes = await readFile(target.path, { signal }); // an aborted signal rejects: cancelled
      const profile = createAnalysisProfile({ name: 'bytes', version: '1', settings: { window: 16 } });
      return { provider: identity, analysis_profile: profile, session: bytes, close: async () => undefined };
    },
  };
}
